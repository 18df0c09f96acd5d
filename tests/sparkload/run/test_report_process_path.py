"""The analysis child imports the installed ``analysis``, whatever the working folder holds."""

import subprocess

import pytest

from tests.matrix_helpers import SPARKLOAD

COMMANDS = ["report", "compare", "fidelity"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_named_analysis_where_the_command_starts_is_not_imported(tmp_path, command):
    impostor = tmp_path / "analysis"
    impostor.mkdir()
    (impostor / "__init__.py").write_text('raise SystemExit("the working directory\'s analysis")\n')
    run = subprocess.run(
        [SPARKLOAD, command, "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert f"sparkload {command}" in run.stdout
