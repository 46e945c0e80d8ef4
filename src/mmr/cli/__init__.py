"""The command-line interface: parse, call the core, render, return an exit code."""
