"""``mmr critique``: an advisory multi-model critique of a design.

Read it in the order of a run: :mod:`~mmr.critique.input` (the artifact),
:mod:`~mmr.critique.context` (repository grounding), :mod:`~mmr.critique.session`,
:mod:`~mmr.critique.lenses` and :mod:`~mmr.critique.prompt` (what each channel is asked),
:mod:`~mmr.critique.plans` and :mod:`~mmr.critique.execute` (the job and the dispatch),
:mod:`~mmr.critique.parser` and :mod:`~mmr.critique.reconcile` (convergence and
divergence), :mod:`~mmr.critique.synthesis`, then :mod:`~mmr.critique.report` and
:mod:`~mmr.critique.text`. :func:`mmr.critique.pipeline.run_critique` ties them together.
"""
