"""snooplab.run, trace and protocols against the command line."""

import pytest

import snooplab

# short runs: the comparisons need a few, not the papers' 8 MB
TOML = """
protocol = "snoop"
env = "wan"
buffer = "8k"
transfer = "512k"
error-every = "32k"
seed = 7
"""
DICT = {
    "protocol": "snoop",
    "env": "wan",
    "buffer": "8k",
    "transfer": 512 * 1024,
    "error_every": "32k",
    "seed": 7,
}


def test_run_equals_the_cli_run_json(cli_json, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(TOML)
    want = cli_json("run", "--scenario", f)
    assert snooplab.run(TOML) == want
    assert snooplab.run(DICT) == want
    # and it is a run of those settings, not a default one
    assert (want["protocol"], want["env"], want["seed"]) == ("ll-tcp-aware", "wan", 7)
    assert want["timeouts"] + want["local_retransmissions"] > 0


def test_a_network_scenario_runs_as_the_cli_runs_it(cli_json):
    path = snooplab_example("cell-3-senders.toml")
    text = path.read_text()
    assert snooplab.run(text) == cli_json("run", "--scenario", path)


def snooplab_example(name):
    from conftest import REPO

    return REPO / "examples" / name


@pytest.mark.parametrize(
    "scenario, flags",
    [
        ({"protocol": "tahoe"}, ["--protocol", "tahoe"]),
        ({"buffer": "8q"}, ["--buffer", "8q"]),
        ({"mss": 10}, ["--mss", "10"]),
        ({"host": "win95"}, ["--host", "win95"]),
    ],
)
def test_bad_settings_raise_value_error_with_the_cli_message(cli, scenario, flags):
    code, _, err = cli("run", *flags)
    assert code == 2
    message = err.strip().removeprefix("error: ")
    with pytest.raises(ValueError) as e:
        snooplab.run(scenario)
    assert str(e.value) == message


def test_bad_files_raise_value_error_with_the_file_message(cli, tmp_path):
    for text in ["bufer = 1\n", "mss = true\n", "protocol = \"snoop\"\n[[flow]]\nfrom = \"a\"\n"]:
        f = tmp_path / "bad.toml"
        f.write_text(text)
        code, _, err = cli("run", "--scenario", f)
        assert code == 2
        message = err.strip().removeprefix(f"error: scenario file {f}: ")
        with pytest.raises(ValueError) as e:
            snooplab.run(text)
        assert str(e.value) == message


def test_non_finite_numbers_are_refused_by_key():
    # was "expected value at line 1 column 14", from the JSON parser
    with pytest.raises(ValueError, match=r"^buffer: nan is not a finite number$"):
        snooplab.run({"buffer": float("nan")})
    with pytest.raises(ValueError, match=r"^host-details.read-delay: inf is not a finite number$"):
        snooplab.run({"host_details": {"read_delay": float("inf")}})
    with pytest.raises(ValueError, match=r"^error-every\[1\]: -inf is not a finite number$"):
        snooplab.sweep({"error_every": [65536, float("-inf")]}, seeds=1)


def test_unknown_dict_keys_are_refused():
    with pytest.raises(ValueError, match="unknown field `bufer`"):
        snooplab.run({"bufer": "8k"})
    with pytest.raises(TypeError):
        snooplab.run(42)


def test_trace_gives_the_tables_of_the_run():
    t = snooplab.trace(DICT)
    assert t["run"] == snooplab.run(DICT)
    for table in ["segments", "acks", "cwnd", "nodes"]:
        assert table in t, sorted(t)
    seg = t["segments"]
    assert len(seg) > 0
    # every byte of the transfer was sent at least once
    assert seg["seq"].max() >= 512 * 1024 - 1400 - 1


def test_protocols_are_the_cli_list(cli):
    code, out, _ = cli("protocols")
    assert code == 0
    names = [line.split()[0] for line in out.split("\n\n")[0].splitlines() if line.strip()]
    got = snooplab.protocols()
    assert list(got) == names
    assert "ll-tcp-aware" in got and got["e2e"]
