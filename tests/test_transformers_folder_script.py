"""The input guesses of tools/transformers_folder_run.py (the coverage figure's script), on
small hand-written modeling and configuration files: which class it builds, which inputs it
gives, and what it tries when they do not fit."""

import importlib.util
import textwrap
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "transformers_folder_run", Path(__file__).resolve().parents[1] / "tools" / "transformers_folder_run.py")
script = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(script)


def _folder(tmp_path, modeling: str, configuration: str):
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "configuration_toy.py").write_text(textwrap.dedent(configuration))
    path = folder / "modeling_toy.py"
    path.write_text(textwrap.dedent(modeling))
    return path


def test_a_detector_beside_its_backbone_is_built_as_the_detector(tmp_path):
    # the first base class's first class is an encoder of hidden states: the detector's base
    # class has a ToyModel taking pixel_values, which is the one built
    path = _folder(tmp_path, """
        from .configuration_toy import ToyConfig, ToyViTConfig

        class ToyViTPreTrainedModel(PreTrainedModel):
            pass

        class ToyViTEncoder(ToyViTPreTrainedModel):
            def forward(self, hidden_states):
                return hidden_states

        class ToyPreTrainedModel(PreTrainedModel):
            pass

        class ToyModel(ToyPreTrainedModel):
            def forward(self, pixel_values, pixel_mask=None):
                return pixel_values
        """, "class ToyConfig: pass\n")
    assert script.model_expression(path.read_text()) == ("ToyModel(ToyConfig())", ["1x3x224x224"])


def test_image_sizes_follow_the_pixels_and_the_tried_image_size(tmp_path):
    path = _folder(tmp_path, """
        from .configuration_toy import ToyConfig

        class ToyPreTrainedModel(PreTrainedModel):
            pass

        class ToyModel(ToyPreTrainedModel):
            def forward(self, input_ids=None, pixel_values=None, image_sizes=None, attention_mask=None):
                return input_ids
        """, """
        class ToyConfig:
            image_size: int = 336
        """)
    model, specs = script.model_expression(path.read_text())
    assert specs == ["1x32:int64", "1x3x224x224", "1x2:int64=224"]
    # the configuration's size, then the same with an axis of 5 tiles (image_sizes given)
    assert script.alternatives(path, specs) == [
        ["1x32:int64", "1x3x336x336", "1x2:int64=336"], ["1x32:int64", "1x5x3x336x336", "1x2:int64=336"]]
    assert script.is_long_shot(path, specs, ["1x32:int64", "1x5x3x336x336", "1x2:int64=336"])
    assert not script.is_long_shot(path, specs, ["1x32:int64", "1x3x336x336", "1x2:int64=336"])


def test_a_pair_image_size_and_few_positions(tmp_path):
    path = _folder(tmp_path, """
        from .configuration_toy import ToyConfig

        class ToyPreTrainedModel(PreTrainedModel):
            pass

        class ToyModel(ToyPreTrainedModel):
            def forward(self, input_ids=None, pixel_values=None):
                return input_ids
        """, """
        class ToyConfig:
            max_position_embeddings: int = 16
            image_size: list[int] | tuple[int, ...] = (32, 128)
        """)
    model, specs = script.model_expression(path.read_text())
    assert specs == ["1x32:int64", "1x3x224x224"]
    assert script.alternatives(path, specs)[0] == ["1x16:int64", "1x3x32x128"]


def test_an_error_naming_an_input_the_script_can_give(tmp_path):
    text = textwrap.dedent("""
        class ToyModel(ToyPreTrainedModel):
            def forward(self, pixel_values=None, input_ids=None, image_embeds=None):
                return pixel_values
        """)
    failed = {"outcome": "failed",
              "cause": "m.py:3:4: error: the model raises an error here: You have to specify either input_ids or inputs_embeds"}
    assert script._asked_for(text, "ToyModel", ["1x3x224x224"], failed) == ["1x3x224x224", "1x32:int64"]
    assert script._asked_for(text, "ToyModel", ["1x3x224x224"], dict(failed, outcome="complete")) is None


def test_text_only_inputs_when_the_default_config_has_no_vision_tower(tmp_path):
    # a multimodal forward(input_ids, pixel_values=None, ...): the script adds the optional image;
    # images=False leaves it (and the image_sizes that follow it) out, and the retry is taken only
    # on a cause saying the model has no vision tower
    text = textwrap.dedent("""
        class ToyModel(ToyPreTrainedModel):
            def forward(self, input_ids=None, pixel_values=None, image_sizes=None, labels=None):
                return input_ids
        """)
    assert script._forward_inputs(text, "ToyModel") == ["1x32:int64", "1x3x224x224", "1x2:int64=224"]
    assert script._forward_inputs(text, "ToyModel", images=False) == ["1x32:int64"]
    assert script.NO_VISION.search("m.py:3:4: error: 'NoneType' object is not callable")
    assert script.NO_VISION.search("m.py:3:4: error: the model raises an error here: Image features were requested, "
                                   "but the model was initialized without a vision_config.")
    assert not script.NO_VISION.search("m.py:3:4: error: Conv2d expects 3 input channels, got 1")


def test_a_split_that_does_not_fit_the_tiles_is_a_misfit(tmp_path):
    # staticflops' own message for torch.split sizes that do not sum to the dimension (an
    # any-resolution model given one image where it splits per tile): the tile axis is tried next
    cause = ("m.py:394:26: error: split: split sizes must sum exactly to the dimension's size 1, got [3] (sum 3)")
    assert script.MISFIT.search(cause)


def test_a_spectrogram_named_input_values(tmp_path):
    # input_values is raw audio (1x16000), then mono (1x1x16000); a configuration naming mel bins
    # and a max_length makes the next try a spectrogram (batch, frames, bins)
    path = _folder(tmp_path, """
        from .configuration_toy import ToyConfig

        class ToyPreTrainedModel(PreTrainedModel):
            pass

        class ToyModel(ToyPreTrainedModel):
            def forward(self, input_values, head_mask=None):
                return input_values
        """, """
        class ToyConfig(PreTrainedConfig):
            num_mel_bins: int = 128
            max_length: int = 1024
        """)
    model, specs = script.model_expression(path.read_text())
    assert specs == ["1x16000"]
    assert script.alternatives(path, specs) == [["1x1x16000"], ["1x1024x128"]]
