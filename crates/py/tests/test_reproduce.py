"""snooplab.reproduce against the command line's reproduce --json."""

import pytest

import snooplab


@pytest.mark.parametrize("paper, parts", [("paper000", ["fig12"]), ("paper004", [])])
def test_reproduce_equals_the_cli_reproduce_json(cli_json, paper, parts):
    want = cli_json("reproduce", paper, *parts, "--seeds", 2)
    got = snooplab.reproduce(paper, parts, seeds=2)
    assert got == want[paper]
    assert got["claims"], sorted(got)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (["paper009"], {}),
        (["paper000", "table9"], {}),
        (["paper004", "fig3"], {}),
        (["paper000", "--host", "win95"], {"host": "win95"}),
    ],
)
def test_bad_papers_raise_value_error_with_the_cli_message(cli, args, kwargs):
    code, _, err = cli("reproduce", *args)
    assert code == 2
    words = [a for a in args if not a.startswith("--") and a != "win95"]
    with pytest.raises(ValueError) as e:
        snooplab.reproduce(words[0], words[1:], **kwargs)
    assert str(e.value) == err.strip().removeprefix("error: ")
