"""Conv + GRU spectrogram model (the "seed" model from a user's question).

Input: a batch of one-channel spectrograms, shape (1, 1, 100, 256) = (batch, channel, time, freq).
Output: per-frame sigmoid activations, shape (1, 97, 256).
"""
import torch
from torch import nn


class SeedModel(nn.Module):
    def __init__(self):
        super(SeedModel, self).__init__()
        self.conv = nn.Conv2d(1, 32, (4, 4), stride=(1, 2))
        self.relu = nn.ReLU()
        self.gru = nn.GRU(4064, 96, batch_first=True)
        self.fc = nn.Linear(96, 256)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        x = self.conv(x)
        x = self.relu(x)
        b, c, t, f = x.shape
        # (B, C, T, F) -> (B, T, C, F) -> (B, T, C*F)
        x = x.permute(0, 2, 1, 3)
        x = x.reshape(b, t, c * f)
        x, h = self.gru(x)
        x = self.fc(x)
        x = self.sigmoid(x)
        return x
