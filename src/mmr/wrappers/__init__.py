"""The two MiniMax wrapper commands, ``review-minimax-run`` and ``explore-minimax-run``.

Each keeps the flags, defaults, exit codes and dry-run output of its original shell
script, but runs on mmr's engine: the MiniMax channel presets, the dispatcher with
its retry policy, clean-tree assertion and telemetry, and the citation gates.
"""
