"""Shell completion as click provides it (``eval "$(_RMQCHECK_COMPLETE=bash_source rmqcheck)"``): commands,
options, and the names users type: presets, knobs after --set, properties, files."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest


def complete(words: str) -> list[str]:
    """What bash completion offers after ``words`` (the last word is the one being completed), as
    ``type,value`` lines, computed in-process as click's bash completion does."""
    from click.shell_completion import BashComplete

    from rmqcheck.cli import cli

    *args, incomplete = words.split(" ")[1:]
    completer = BashComplete(cli, {}, "rmqcheck", "_RMQCHECK_COMPLETE")
    return [f"{item.type},{item.value}" for item in completer.get_completions(args, incomplete)]


def test_bash_source_is_a_completion_script():
    env = {**os.environ, "_RMQCHECK_COMPLETE": "bash_source"}
    out = subprocess.run([sys.executable, "-c", "from rmqcheck.cli import main; main()"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "complete -o nosort -F _rmqcheck_completion rmqcheck" in out.stdout


@pytest.mark.parametrize("words, offered", [
    ("rmqcheck con", ["plain,config"]),
    ("rmqcheck check --broker", ["plain,--broker-conf"]),
    ("rmqcheck check --preset sync-m", ["plain,sync-master"]),
    ("rmqcheck check --set max_master_c", ["plain,max_master_crashes="]),
    # every registered mode's names (a --mode given before is not read back by click's completion)
    ("rmqcheck faults --property acked", ["plain,acked_message_never_lost", "plain,acked_message_eventually_consumed",
                                          "plain,acked_message_on_every_later_master"]),
    ("rmqcheck check --preset controller-a", ["plain,controller-allack"]),
    ("rmqcheck check --set all_ack", ["plain,all_ack_in_sync_state_set="]),
    ("rmqcheck check --broker-conf exam", ["file,exam"]),
])
def test_completion_offers_commands_options_and_names(words, offered):
    assert complete(words) == offered
