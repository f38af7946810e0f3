"""The reference documents' conv-GRU-dense model, written in Keras the way the seed wrote it.

Input (batch, channels, time, frequency) = (1, 1, 100, 256), channels_first as in the seed;
Conv2D(32, 4x4, stride 1x2) -> (1, 32, 97, 127) -> Reshape (1, 97, 32 * 127) -> GRU(96)
-> Dense(256, sigmoid) -> (1, 97, 256).
"""
from tensorflow.keras.layers import GRU, Conv2D, Dense, Input, Reshape
from tensorflow.keras.models import Model


def build_model(input_shape=(1, 1, 100, 256)):
    main_input = Input(batch_shape=input_shape, name="main_inputs")
    conv = Conv2D(32, kernel_size=(4, 4), strides=(1, 2), activation="relu", data_format="channels_first",
                  name="conv")(main_input)
    # (batch, channels, time, frequency) -> (batch, time, channels * frequency)
    gru = Reshape((conv.shape[2], conv.shape[1] * conv.shape[3]))(conv)
    gru = GRU(units=96, reset_after=True, return_sequences=True, name="gru")(gru)
    output = Dense(256, activation="sigmoid", name="output")(gru)
    return Model(inputs=[main_input], outputs=[output])
