# transformers' PreTrainedModel.from_pretrained as the analysis models it (overlays/__init__.py):
# the config as from_pretrained reads it, the model built from it, eval mode; the checkpoint's
# weights, which change no cost, are never read.  Keyword arguments of the loading alone (where
# to read from, devices, dtypes, quantization) are dropped; the others reach the config and the
# model as in from_pretrained.


_LOADING = ("cache_dir", "ignore_mismatched_sizes", "force_download", "local_files_only", "token", "revision",
            "use_safetensors", "weights_only", "fusion_config", "disable_mmap", "state_dict", "proxies",
            "tqdm_class", "output_loading_info", "_from_pipeline", "_from_auto", "dtype", "torch_dtype",
            "device_map", "max_memory", "offload_folder", "offload_buffers", "quantization_config", "subfolder",
            "_commit_hash", "variant", "adapter_kwargs", "adapter_name", "generation_config", "gguf_file",
            "distributed_config", "device_mesh", "tp_plan", "tp_size", "trust_remote_code", "allow_all_kernels",
            "use_kernels", "kernel_config", "key_mapping", "low_cpu_mem_usage", "use_auth_token")
_READING = ("cache_dir", "force_download", "local_files_only", "token", "revision", "subfolder", "proxies")


def from_pretrained(cls, pretrained_model_name_or_path, *model_args, config=None, **kwargs):
    reading = {name: kwargs[name] for name in _READING if name in kwargs}
    path = local_path(pretrained_model_name_or_path, config, kwargs)
    for name in _LOADING:
        kwargs.pop(name, None)
    if not isinstance(config, PreTrainedConfig):
        config_path = config if config is not None else path
        config, model_kwargs = cls.config_class.from_pretrained(config_path, return_unused_kwargs=True, **reading,
                                                                 **kwargs)
    else:
        model_kwargs = kwargs
    for name in ("attn_implementation", "experts_implementation"):  # set on the config, as from_pretrained does
        if name in kwargs:
            setattr(config, "_" + name, kwargs[name])
            model_kwargs.pop(name, None)
    config.name_or_path = pretrained_model_name_or_path
    model = cls(config, *model_args, **model_kwargs)
    model.eval()
    return model

