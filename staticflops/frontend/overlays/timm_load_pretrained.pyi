# timm's load_pretrained as the analysis models it (overlays/__init__.py): it only fills the
# built model's parameters with the checkpoint's weights (downloaded, adapted to num_classes and
# in_chans, loaded with load_state_dict), which change no cost and are never read.  The model it
# is given is already what create_model(..., pretrained=True) returns.


def load_pretrained(model, pretrained_cfg=None, num_classes=1000, in_chans=3, filter_fn=None, strict=True,
                    cache_dir=None):
    pretrained_cfg = pretrained_cfg or getattr(model, "pretrained_cfg", None)
    if not pretrained_cfg:
        raise RuntimeError("Invalid pretrained config, cannot load weights. Use `pretrained=False` for random init.")
    return None
