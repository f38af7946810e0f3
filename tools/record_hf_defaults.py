"""Record ground truth for popular Hugging Face architectures built from their *default* config
(what `staticflops analyze config.json` builds from `{"model_type": ..., "architectures": [...]}`):
torch 2.13.0 CPU + transformers 5.23.0, with the conventions of tools/record_transformers.py
(eager attention, use_cache=False, eager experts, eval, no_grad, SDPA MATH, oneDNN off;
FlopCounterMode's forward total; params = sum of numel, tied weights once).  Attention masks are
ones, as `--input 1x32:int64=1` says.  Models over ~1 B parameters are left out (CPU memory).

    /work/gt/torchonly/bin/python tools/record_hf_defaults.py   # writes tests/fixtures/hf_default_configs.json

tests/test_hf_default_configs.py analyses some of them without torch; `python
tools/compare_hf_defaults.py --source-path SITE_PACKAGES` analyses all and prints the table the
docs quote.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_transformers import build, measure  # noqa: E402  (imports torch and transformers)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "hf_default_configs.json")

IDS, MASK = ("input_ids", [1, 32], "int64"), ("attention_mask", [1, 32], "int64")
SEQ2SEQ = [IDS, MASK, ("decoder_input_ids", [1, 32], "int64")]
IMAGE = [("pixel_values", [1, 3, 224, 224], "float32")]


def image(size):
    return [("pixel_values", [1, 3, size, size], "float32")]


# name -> (model_type, architecture, forward's positional inputs in order)
CASES = {
    "bert-seqcls": ("bert", "BertForSequenceClassification", [IDS]),
    "bert-qa": ("bert", "BertForQuestionAnswering", [IDS]),
    "roberta-mlm": ("roberta", "RobertaForMaskedLM", [IDS]),
    # model types whose classes live in another file or folder: "data2vec-text" in
    # data2vec/modeling_data2vec_text.py, "gpt-sw3" builds GPT2LMHeadModel (models/gpt2)
    "data2vec-text-clm": ("data2vec-text", "Data2VecTextForCausalLM", [IDS]),
    "gpt-sw3": ("gpt-sw3", "GPT2LMHeadModel", [IDS]),
    "distilbert": ("distilbert", "DistilBertForSequenceClassification", [IDS]),
    "modernbert": ("modernbert", "ModernBertForMaskedLM", [IDS]),
    "deberta-v2": ("deberta-v2", "DebertaV2ForSequenceClassification", [IDS]),
    "electra": ("electra", "ElectraForPreTraining", [IDS]),
    "albert": ("albert", "AlbertForMaskedLM", [IDS]),
    "xlm-roberta": ("xlm-roberta", "XLMRobertaForMaskedLM", [IDS]),
    "big_bird": ("big_bird", "BigBirdModel", [IDS]),
    "mpnet": ("mpnet", "MPNetModel", [IDS]),
    "funnel": ("funnel", "FunnelModel", [IDS]),
    "canine": ("canine", "CanineModel", [IDS]),
    "layoutlmv3": ("layoutlmv3", "LayoutLMv3Model", [IDS]),
    "gpt2-seqcls": ("gpt2", "GPT2ForSequenceClassification", [IDS]),
    "opt": ("opt", "OPTForCausalLM", [IDS]),
    "bloom": ("bloom", "BloomForCausalLM", [IDS]),
    "gpt_bigcode": ("gpt_bigcode", "GPTBigCodeForCausalLM", [IDS]),
    "mamba": ("mamba", "MambaForCausalLM", [IDS]),
    "ernie4_5": ("ernie4_5", "Ernie4_5ForCausalLM", [IDS]),
    "xlnet": ("xlnet", "XLNetLMHeadModel", [IDS]),
    "reformer": ("reformer", "ReformerModelWithLMHead", [IDS]),
    "bart": ("bart", "BartForConditionalGeneration", SEQ2SEQ),
    "mbart": ("mbart", "MBartForConditionalGeneration", SEQ2SEQ),
    "pegasus": ("pegasus", "PegasusForConditionalGeneration", SEQ2SEQ),
    "m2m_100": ("m2m_100", "M2M100ForConditionalGeneration", SEQ2SEQ),
    "t5": ("t5", "T5ForConditionalGeneration", SEQ2SEQ),
    "mt5": ("mt5", "MT5ForConditionalGeneration", SEQ2SEQ),
    "umt5": ("umt5", "UMT5ForConditionalGeneration", SEQ2SEQ),
    "longt5": ("longt5", "LongT5ForConditionalGeneration", SEQ2SEQ),
    "whisper": ("whisper", "WhisperForConditionalGeneration",
                [("input_features", [1, 80, 3000], "float32"), ("attention_mask", [1, 3000], "int64"),
                 ("decoder_input_ids", [1, 32], "int64")]),
    "speech_to_text": ("speech_to_text", "Speech2TextForConditionalGeneration",
                       [("input_features", [1, 584, 80], "float32"), ("attention_mask", [1, 584], "int64"),
                        ("decoder_input_ids", [1, 32], "int64")]),
    "wav2vec2": ("wav2vec2", "Wav2Vec2ForCTC", [("input_values", [1, 16000], "float32")]),
    "hubert": ("hubert", "HubertModel", [("input_values", [1, 16000], "float32")]),
    "wavlm": ("wavlm", "WavLMModel", [("input_values", [1, 16000], "float32")]),
    "encodec": ("encodec", "EncodecModel", [("input_values", [1, 1, 16000], "float32")]),
    "vit": ("vit", "ViTForImageClassification", IMAGE),
    "deit": ("deit", "DeiTForImageClassification", IMAGE),
    "beit": ("beit", "BeitForImageClassification", IMAGE),
    "swin": ("swin", "SwinForImageClassification", IMAGE),
    "dinov2": ("dinov2", "Dinov2Model", IMAGE),
    "resnet": ("resnet", "ResNetForImageClassification", IMAGE),
    "convnextv2": ("convnextv2", "ConvNextV2ForImageClassification", IMAGE),
    "efficientnet": ("efficientnet", "EfficientNetForImageClassification", image(600)),
    "mobilevit": ("mobilevit", "MobileViTForImageClassification", image(256)),
    "segformer": ("segformer", "SegformerForSemanticSegmentation", image(512)),
    "upernet": ("upernet", "UperNetForSemanticSegmentation", image(512)),
    "dpt": ("dpt", "DPTForDepthEstimation", image(384)),
    "depth_anything": ("depth_anything", "DepthAnythingForDepthEstimation", image(518)),
    "yolos": ("yolos", "YolosForObjectDetection", [("pixel_values", [1, 3, 512, 864], "float32")]),
    "swin2sr": ("swin2sr", "Swin2SRForImageSuperResolution", image(64)),
    "timesformer": ("timesformer", "TimesformerModel", [("pixel_values", [1, 8, 3, 224, 224], "float32")]),
    "clip": ("clip", "CLIPModel", [IDS, ("pixel_values", [1, 3, 224, 224], "float32")]),
    "siglip": ("siglip", "SiglipModel", [IDS, ("pixel_values", [1, 3, 224, 224], "float32")]),
    "owlvit": ("owlvit", "OwlViTModel", [("input_ids", [1, 16], "int64"), ("pixel_values", [1, 3, 768, 768], "float32")]),
    "blip": ("blip", "BlipForConditionalGeneration", [("pixel_values", [1, 3, 384, 384], "float32"), IDS]),
}


def main():
    out = {"versions": {"torch": measure.__globals__["torch"].__version__,
                        "transformers": measure.__globals__["transformers"].__version__},
           "conventions": "default config, eager attention, use_cache=False, eager experts, eval, no_grad, SDPA MATH, "
                          "oneDNN off; attention masks all ones",
           "cases": {}}
    only = set(sys.argv[1:])  # names given: record those, keep the fixture's other cases
    if only and os.path.exists(OUT):
        with open(OUT) as f:
            out["cases"] = json.load(f)["cases"]
    for name, (model_type, arch, inputs) in CASES.items():
        if only and name not in only:
            continue
        config_json = {"model_type": model_type, "architectures": [arch]}
        try:
            model = build(config_json)
            entry = measure(model, inputs, getattr(model.config, "vocab_size", 1000) or 1000)
        except Exception as error:  # torch itself fails on this default config and input
            entry = {"error": f"{type(error).__name__}: {error}"[:300]}
        model = None
        entry.update(config=config_json, inputs=[{"name": n, "shape": s, "dtype": d} for n, s, d in inputs])
        out["cases"][name] = entry
        print(name, entry.get("params"), entry.get("forward_flops"), entry.get("error", ""), flush=True)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
