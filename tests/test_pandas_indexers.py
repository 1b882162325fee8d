"""pandas' indexers (``df.loc[...]``, ``df.iloc[...]``) select a data frame's rows on the host: no NPU402. The
method below is a Lightning module's evaluation code as a new user's project has it (comparisons of data frame
columns, ``isin``, ``.loc`` with a column), reported three times as boolean-mask selections before."""
from __future__ import annotations

from npu_lint.core import analyse_source

SOURCE = 'import pandas as pd\nimport pytorch_lightning as pl\nimport torch\n\n\nclass M(pl.LightningModule):\n    def calculate_empty_frame_accuracy(self, ground_df, predictions_df):\n        """Calculate accuracy for empty frames (frames with no objects).\n\n        Args:\n            ground_df (pd.DataFrame): Ground truth dataframe containing image paths and bounding boxes.\n                Must have columns \'image_path\', \'xmin\', \'ymin\', \'xmax\', \'ymax\'.\n            predictions_df (pd.DataFrame): Model predictions dataframe containing image paths and predicted boxes.\n                Must have column \'image_path\'.\n\n        Returns:\n            float or None: Accuracy score for empty frame detection. A score of 1.0 means the model correctly\n                identified all empty frames (no false positives), while 0.0 means it predicted objects\n                in all empty frames (all false positives). Returns None if there are no empty frames.\n        """\n        # Find images that are marked as empty in ground truth (all coordinates are 0)\n        empty_images = ground_df.loc[\n            (ground_df.xmin == 0)\n            & (ground_df.ymin == 0)\n            & (ground_df.xmax == 0)\n            & (ground_df.ymax == 0),\n            "image_path",\n        ].unique()\n\n        if len(empty_images) == 0:\n            return None\n\n        if predictions_df.empty:\n            # Empty predictions with empty ground truth = 100% accuracy\n            empty_accuracy = 1\n        else:\n            # Get non-empty predictions for empty images\n            non_empty_predictions = predictions_df.loc[predictions_df.xmin.notnull()]\n            predictions_for_empty_images = non_empty_predictions.loc[\n                non_empty_predictions.image_path.isin(empty_images)\n            ]\n\n            # Create prediction tensor - 1 if model predicted objects, 0 if predicted empty\n            predictions = torch.zeros(len(empty_images))\n            for index, image in enumerate(empty_images):\n                if (\n                    len(\n                        predictions_for_empty_images.loc[\n                            predictions_for_empty_images.image_path == image\n                        ]\n                    )\n                    > 0\n                ):\n                    predictions[index] = 1\n\n            # Ground truth tensor - all zeros since these are empty frames\n            gt = torch.zeros(len(empty_images))\n            predictions = torch.tensor(predictions)\n\n            # Calculate accuracy using metric\n            self.empty_frame_accuracy.update(predictions, gt)\n            empty_accuracy = self.empty_frame_accuracy.compute()\n            self.empty_frame_accuracy.reset()\n\n        # Log empty frame accuracy\n        self.log("empty_frame_accuracy", empty_accuracy)\n'


def test_pandas_row_selections_are_no_mask_selections() -> None:
    assert [(f.code, f.line) for f in analyse_source(SOURCE) if f.code == "NPU402"] == []


def test_a_tensor_mask_selection_in_the_same_method_still_is() -> None:
    tensor_form = SOURCE.replace("        # Ground truth tensor", "        kept = gt[gt > 0]\n        # Ground truth tensor", 1)
    # (a tensor of the data frame's values: ``gt`` itself is all zeros, a fill of constants whose selection has a
    # count the code fixes, session 25)
    tensor_form = tensor_form.replace("            gt = torch.zeros(len(empty_images))\n",
                                      "            gt = torch.zeros(len(empty_images))\n"
                                      "            xs = torch.as_tensor(ground_df.xmin.values)\n            kept = xs[xs > 0]\n", 1)
    assert any(f.code == "NPU402" for f in analyse_source(tensor_form))
