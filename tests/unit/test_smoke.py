from mmr.cli.main import main


def test_version_prints_package_version(capsys):
    from mmr import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == __version__ + "\n"


def test_the_distribution_is_mmr_review_and_installs_the_mmr_command():
    # `mmr` on the public package index is an unrelated project (a Markdown renderer).
    from importlib import metadata

    dist = metadata.distribution("mmr-review")
    scripts = {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}
    assert scripts["mmr"] == "mmr.cli.main:main"
    from mmr import __version__

    assert dist.version == __version__
