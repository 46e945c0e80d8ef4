"""Configuration: the layered ``.mmr.yaml`` / ``~/.mmr/config.yaml`` loader and channel registry.

Entry points: ``loader.load_config`` (→ ``loaded.LoadedConfig``), ``selection.select_channels``,
``paths`` for every state directory.
"""
