# diffusers' ModelMixin.from_pretrained as the analysis models it (overlays/__init__.py): the
# config as from_pretrained loads it (load_config, `subfolder` included), the model built from it
# with from_config, eval mode; the checkpoint's weights, which change no cost, are never read.
# Keyword arguments of the loading alone (devices, dtypes, quantization, offloading) are dropped.


_LOADING = ("ignore_mismatched_sizes", "output_loading_info", "torch_dtype", "dtype", "device_map", "max_memory",
            "offload_folder", "offload_state_dict", "low_cpu_mem_usage", "variant", "use_safetensors",
            "quantization_config", "disable_mmap", "parallel_config", "use_flashpack", "flashpack_kwargs",
            "from_flax", "use_keras_format", "mirror", "_commit_hash", "dduf_entries")
_READING = ("cache_dir", "force_download", "proxies", "local_files_only", "token", "revision", "subfolder")


def from_pretrained(cls, pretrained_model_name_or_path, **kwargs):
    path = local_path(pretrained_model_name_or_path, None, kwargs)
    reading = {name: kwargs.pop(name) for name in _READING if name in kwargs}
    for name in _LOADING:
        kwargs.pop(name, None)
    config, unused_kwargs = cls.load_config(path, return_unused_kwargs=True, **reading,
                                            **kwargs)
    model = cls.from_config(config, **unused_kwargs)
    model.eval()
    return model

