"""Collators of tokenized text, subclassed in engine/text.py: one keeps Hugging Face's default padding (True: the
longest of the batch), one pads to a fixed length, one sets padding in its constructor (no known default)."""
from dataclasses import dataclass

from transformers import DataCollatorWithPadding


@dataclass
class PairCollatorBase(DataCollatorWithPadding):
    query_max_len: int = 32


@dataclass
class FixedCollatorBase(DataCollatorWithPadding):
    padding: str = "max_length"


class ConfiguredCollatorBase(DataCollatorWithPadding):
    def __init__(self, tokenizer, padding):
        super().__init__(tokenizer)
        self.padding = padding
