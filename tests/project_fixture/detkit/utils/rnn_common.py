"""Names the RNN modules take with a star import (old NLP code: ``from .common import *``)."""
import torch
import torch.nn as nn

PAD_ID = 0
