from mmr.cli.main import main


def test_version_prints_package_version(capsys):
    from mmr import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == __version__ + "\n"
