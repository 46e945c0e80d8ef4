"""Configuration: the layered ``.mmr.yaml`` / ``~/.mmr/config.yaml`` loader and channel registry.

Entry points: ``loader.load_config`` (→ ``loaded.LoadedConfig``), ``selection.select_channels``,
``paths`` for every state directory. Nothing is imported here, so ``import mmr.config`` stays
free (the CLI's fast paths rely on that).
"""
