"""config_edit."""
