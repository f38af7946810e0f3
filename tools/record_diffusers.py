"""Record ground truth for diffusers models by executing torch 2.13.0 CPU + diffusers 0.42.1.

Only tools/ scripts import torch; tests/test_diffusers.py reads the JSON this writes
(tests/fixtures/diffusers_ground_truth.json).  Conventions as tools/record_torch.py:
FlopCounterMode forward total, eval mode under torch.no_grad(), SDPA MATH backend and oneDNN
off; params = sum of p.numel() over model.parameters().

Models (``CASES`` below, also read by the test):
* ``unet_small``: a small ``UNet2DConditionModel`` (two blocks, cross-attention 32 wide).
* ``vae_small``: a small ``AutoencoderKL`` (two blocks of 32 and 64 channels).
* ``sd15_unet``: Stable Diffusion 1.5's published UNet config (``unet/config.json`` of
  stable-diffusion-v1-5), at a 64x64 latent (a 512x512 image) with CLIP's 77x768 text states.
* ``flux_small``, ``sd3_small``: small ``FluxTransformer2DModel`` and ``SD3Transformer2DModel``
  (two blocks of each kind, 2 heads), their inputs in ``forward``'s order.
* ``flux_dev_transformer``: FLUX.1-dev's published ``transformer/config.json``, params only
  (built on the meta device).

Inputs of the UNet's forward, in order: ``sample`` (latents, N x 4 x H x W), ``timestep`` (a
1-D int64 tensor of one step per sample, here ``[10]``: its value does not change the cost) and
``encoder_hidden_states`` (text embeddings, N x 77 x cross_attention_dim).  AutoencoderKL's
forward takes the image (N x 3 x H x W) and returns the decoded reconstruction.

How to run (repository root):

    /work/torchvenv/bin/pip install diffusers==0.42.1 'torch==2.13.0' transformers==5.23.0 requests pillow
    /work/torchvenv/bin/python tools/record_diffusers.py
"""
import json
import os
import warnings

warnings.filterwarnings("ignore")  # oneDNN TF32 and deprecation notices; no effect on counts

import diffusers  # noqa: E402
import torch  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "fixtures", "diffusers_ground_truth.json")

SD15_UNET = {  # stable-diffusion-v1-5/unet/config.json (the constructor's arguments in it)
    "act_fn": "silu", "attention_head_dim": 8, "block_out_channels": [320, 640, 1280, 1280],
    "center_input_sample": False, "cross_attention_dim": 768,
    "down_block_types": ["CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"],
    "downsample_padding": 1, "flip_sin_to_cos": True, "freq_shift": 0, "in_channels": 4, "layers_per_block": 2,
    "mid_block_scale_factor": 1, "norm_eps": 1e-05, "norm_num_groups": 32, "out_channels": 4, "sample_size": 64,
    "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"],
}

# name -> (class, constructor keyword arguments, inputs as (shape, dtype))
CASES = {
    "unet_small": ("UNet2DConditionModel", {
        "block_out_channels": [32, 64], "layers_per_block": 2, "sample_size": 32, "in_channels": 4,
        "out_channels": 4, "down_block_types": ["CrossAttnDownBlock2D", "DownBlock2D"],
        "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D"], "cross_attention_dim": 32,
        "attention_head_dim": 8, "norm_num_groups": 32,
    }, [([1, 4, 32, 32], "float32"), ([1], "int64"), ([1, 77, 32], "float32")]),
    "vae_small": ("AutoencoderKL", {
        "in_channels": 3, "out_channels": 3, "block_out_channels": [32, 64],
        "down_block_types": ["DownEncoderBlock2D", "DownEncoderBlock2D"],
        "up_block_types": ["UpDecoderBlock2D", "UpDecoderBlock2D"], "latent_channels": 4,
        "layers_per_block": 1, "norm_num_groups": 32, "sample_size": 32,
    }, [([1, 3, 32, 32], "float32")]),
    "sd15_unet": ("UNet2DConditionModel", SD15_UNET,
                  [([1, 4, 64, 64], "float32"), ([1], "int64"), ([1, 77, 768], "float32")]),
    # Flux's MMDiT: hidden_states (N x image tokens x channels, the latents packed 2x2),
    # encoder_hidden_states (text tokens), pooled_projections, timestep, img_ids, txt_ids
    # (positions for the rotary embedding, 3 axes), guidance
    "flux_small": ("FluxTransformer2DModel", {
        "patch_size": 1, "in_channels": 16, "num_layers": 2, "num_single_layers": 2, "attention_head_dim": 16,
        "num_attention_heads": 2, "joint_attention_dim": 32, "pooled_projection_dim": 32, "guidance_embeds": True,
        "axes_dims_rope": [4, 6, 6],
    }, [([1, 64, 16], "float32"), ([1, 8, 32], "float32"), ([1, 32], "float32"), ([1], "float32"),
        ([64, 3], "float32"), ([8, 3], "float32"), ([1], "float32")]),
    # SD3's MMDiT: hidden_states (latents N x C x H x W), encoder_hidden_states,
    # pooled_projections, timestep
    "sd3_small": ("SD3Transformer2DModel", {
        "sample_size": 32, "patch_size": 2, "in_channels": 4, "num_layers": 2, "attention_head_dim": 8,
        "num_attention_heads": 2, "joint_attention_dim": 32, "caption_projection_dim": 16,
        "pooled_projection_dim": 32, "out_channels": 4, "pos_embed_max_size": 32,
    }, [([1, 4, 32, 32], "float32"), ([1, 8, 32], "float32"), ([1, 32], "float32"), ([1], "int64")]),
}
# SDXL's UNet takes its pooled text embedding and size conditioning by keyword, in a dict:
# added_cond_kwargs={"text_embeds": N x 1280, "time_ids": N x 6} (the name -> (shape, dtype),
# dotted for a key of a dict argument, as --keyword-input spells it)
CASES["unet_sdxl_small"] = ("UNet2DConditionModel", {
    "block_out_channels": [32, 64], "layers_per_block": 2, "sample_size": 32, "in_channels": 4, "out_channels": 4,
    "down_block_types": ["DownBlock2D", "CrossAttnDownBlock2D"], "up_block_types": ["CrossAttnUpBlock2D", "UpBlock2D"],
    "cross_attention_dim": 32, "attention_head_dim": 8, "norm_num_groups": 32, "transformer_layers_per_block": [1, 2],
    "use_linear_projection": True, "addition_embed_type": "text_time", "addition_time_embed_dim": 8,
    "projection_class_embeddings_input_dim": 64,  # text_embeds' 16 + 6 time ids x 8
}, [([1, 4, 32, 32], "float32"), ([1], "int64"), ([1, 77, 32], "float32")])
KEYWORDS = {"unet_sdxl_small": {"added_cond_kwargs.text_embeds": ([1, 16], "float32"),
                                "added_cond_kwargs.time_ids": ([1, 6], "float32")}}
# Published sizes, params only (built on the meta device): FLUX.1-dev's transformer/config.json.
PUBLISHED = {
    "flux_dev_transformer": ("FluxTransformer2DModel", {
        "attention_head_dim": 128, "guidance_embeds": True, "in_channels": 64, "joint_attention_dim": 4096,
        "num_attention_heads": 24, "num_layers": 19, "num_single_layers": 38, "patch_size": 1,
        "pooled_projection_dim": 768,
    }),
    # stable-diffusion-xl-base-1.0's unet/config.json (the constructor's arguments in it)
    "sdxl_unet": ("UNet2DConditionModel", {
        "act_fn": "silu", "addition_embed_type": "text_time", "addition_embed_type_num_heads": 64,
        "addition_time_embed_dim": 256, "attention_head_dim": [5, 10, 20], "block_out_channels": [320, 640, 1280],
        "center_input_sample": False, "cross_attention_dim": 2048,
        "down_block_types": ["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"], "downsample_padding": 1,
        "flip_sin_to_cos": True, "freq_shift": 0, "in_channels": 4, "layers_per_block": 2, "mid_block_scale_factor": 1,
        "norm_eps": 1e-05, "norm_num_groups": 32, "out_channels": 4, "projection_class_embeddings_input_dim": 2816,
        "sample_size": 128, "transformer_layers_per_block": [1, 2, 10],
        "up_block_types": ["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"], "use_linear_projection": True,
    }),
}


def make_input(shape, dtype):
    if dtype == "int64":
        return torch.full(shape, 10, dtype=torch.int64)
    return torch.randn(*shape)


def measure(name):
    class_name, kwargs, inputs = CASES[name]
    torch.manual_seed(0)
    model = getattr(diffusers, class_name)(**kwargs).eval()
    args = [make_input(shape, dtype) for shape, dtype in inputs]
    keywords: dict = {}
    for key, (shape, dtype) in KEYWORDS.get(name, {}).items():
        *outer, last = key.split(".")
        holder = keywords
        for part in outer:
            holder = holder.setdefault(part, {})
        holder[last] = make_input(shape, dtype)
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), torch.backends.mkldnn.flags(enabled=False):
        counter = FlopCounterMode(display=False)
        with counter:
            out = model(*args, **keywords, return_dict=False)[0]
    return {
        "class": class_name,
        "kwargs": kwargs,
        "inputs": [{"shape": shape, "dtype": dtype} for shape, dtype in inputs],
        "keyword_inputs": {key: {"shape": shape, "dtype": dtype} for key, (shape, dtype) in KEYWORDS.get(name, {}).items()},
        "output_shapes": [list(out.shape)],
        "forward_flops": counter.get_total_flops(),
        "flops_by_op": {str(k): v for k, v in sorted(counter.get_flop_counts()["Global"].items(), key=str)},
        "params": sum(p.numel() for p in model.parameters()),
        "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
    }


def main():
    torch.set_num_threads(1)
    results = {
        "_meta": {"torch": torch.__version__, "diffusers": diffusers.__version__,
                  "method": "FlopCounterMode, eval, torch.no_grad(), SDPA MATH backend, mkldnn off",
                  "script": "tools/record_diffusers.py"},
    }
    for name in CASES:
        results[name] = measure(name)
        print(name, results[name]["params"], results[name]["forward_flops"], results[name]["output_shapes"])
    for name, (class_name, kwargs) in PUBLISHED.items():
        with torch.device("meta"):
            model = getattr(diffusers, class_name)(**kwargs)
        results[name] = {"class": class_name, "kwargs": kwargs, "params": sum(p.numel() for p in model.parameters()),
                         "device": "meta"}
        print(name, results[name]["params"])
    with open(OUT, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
