"""Every command that prints a verdict document offers every format mmr can render."""

from __future__ import annotations

import typing

import pytest
import typer

from mmr.cli.app import app
from mmr.cli.introspect import choices_of
from mmr.vocabulary import FORMATS

ROOT = typer.main.get_command(app)


def format_choices(command_name: str) -> tuple[str, ...] | None:
    command = ROOT.commands[command_name]
    [option] = [p for p in command.params if "--format" in getattr(p, "opts", ())]
    return choices_of(option)


@pytest.mark.parametrize("name", ["results", "reconcile"])
def test_verdict_commands_offer_every_format(name):
    assert format_choices(name) == FORMATS


def test_review_offers_every_format():
    assert format_choices("review") == FORMATS


def test_defaults_format_accepts_every_format():
    from mmr.config.schema import OutputFormat

    assert typing.get_args(OutputFormat) == FORMATS
