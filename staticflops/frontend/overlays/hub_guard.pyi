# The analysed process has no network: a hub id given to from_pretrained (or a config loader) is
# a download it cannot make.  As from_pretrained raises offline when nothing is cached, this is
# an OSError, saying what to give instead.  A folder or file of the project is read as the
# library reads it; with the hub cache named (HF_HUB_CACHE or HF_HOME in --env), the library's
# own code looks there.

import os


def offline_check(name, config):
    if config is not None or os.path.isdir(name) or os.path.isfile(name):
        return
    if os.environ.get("HF_HUB_CACHE") or os.environ.get("HF_HOME"):
        return
    raise OSError(f"{name!r} is not a folder of the project, so loading it means downloading it from the Hugging "
                  "Face hub, and the analysis reads no network: give the model's config instead, a folder of the "
                  "project holding its config.json (from_pretrained('that/folder'); weights are never read), or "
                  "analyse the config.json itself")


def guarded(original):
    """``original`` (a classmethod's function) after the check."""
    def from_pretrained(cls, pretrained_model_name_or_path, *args, **kwargs):
        offline_check(pretrained_model_name_or_path, kwargs.get("config"))
        return original(cls, pretrained_model_name_or_path, *args, **kwargs)
    return from_pretrained
