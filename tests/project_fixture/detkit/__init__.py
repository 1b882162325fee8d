from .ops.boxes import positive_indices
from .models.detector import Detector

__all__ = ["positive_indices", "Detector"]
