# The analysed process has no network: a hub id given to from_pretrained (or a config loader) is
# found as huggingface_hub finds it offline, in the hub cache the caller named (--env
# HF_HUB_CACHE=... or HF_HOME=...): the snapshot folder its refs/<revision> names, which the
# library then reads as a local folder.  Not cached, or no cache named: OSError, as
# from_pretrained raises offline with nothing cached, saying what to give instead.  A folder or
# file of the project is given to the library as it is.

import os


def local_path(name, config, kwargs):
    """What the library reads for ``name``: itself, or the hub id's cached snapshot folder."""
    if config is not None or not isinstance(name, str) or os.path.isdir(name) or os.path.isfile(name):
        return name
    cache = os.environ.get("HF_HUB_CACHE")
    if not cache and os.environ.get("HF_HOME"):
        cache = os.path.join(os.environ["HF_HOME"], "hub")
    if not cache:
        raise OSError(f"{name!r} is not a folder of the project (no {os.path.abspath(name)}: a relative path is taken "
                      "from the project root), so loading it means downloading it from the "
                      "Hugging Face hub, and the analysis reads no network: give the model's config instead, a "
                      "folder of the project holding its config.json (from_pretrained('that/folder'); weights are "
                      "never read), or analyse the config.json itself, or name the hub cache holding it with "
                      "--env HF_HUB_CACHE=...")
    repo = os.path.join(cache, "models--" + name.replace("/", "--"))
    revision = kwargs.get("revision") or "main"
    reference = os.path.join(repo, "refs", revision)
    if os.path.isfile(reference):
        with open(reference) as file:
            revision = file.read().strip()
    snapshot = os.path.join(repo, "snapshots", revision)
    if not os.path.isdir(snapshot):
        raise OSError(f"{name!r} (revision {revision!r}) is not in the hub cache at {cache}, and the analysis reads "
                      "no network: download it there first, or give a folder of the project holding its config.json")
    return snapshot


def guarded(original):
    """``original`` (a classmethod's function) given the local path for a hub id."""
    def from_pretrained(cls, pretrained_model_name_or_path, *args, **kwargs):
        path = local_path(pretrained_model_name_or_path, kwargs.get("config"), kwargs)
        return original(cls, path, *args, **kwargs)
    return from_pretrained
