from detkit.utils.rnn_common import *


class Encoder(torch.nn.Module):
    def encode(self, x, lens):
        packed = nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=True)  # expect: NPU401@17 NPU101@17
        return self.rnn(packed)
