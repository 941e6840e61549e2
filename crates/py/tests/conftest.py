"""Shared fixtures: the command line built from the same checkout, to compare against."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def cli():
    """Runs ``snooplab`` (``$SNOOPLAB_BIN``, else target/release/snooplab) and returns
    ``(exit code, stdout, stderr)``."""
    exe = pathlib.Path(os.environ.get("SNOOPLAB_BIN", REPO / "target" / "release" / "snooplab"))
    if not exe.is_file():
        pytest.fail(f"{exe} is missing: build it first (cargo build --release, or scripts/test-all)")

    def call(*args):
        p = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    return call


@pytest.fixture(scope="session")
def cli_json(cli):
    """The command line's ``--json`` output, parsed; fails on a non-zero exit."""

    def call(*args):
        code, out, err = cli(*args, "--json")
        assert code == 0, err
        return json.loads(out)

    return call
