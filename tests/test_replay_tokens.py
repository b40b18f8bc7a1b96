"""Replay tokens carry a format version and survive moves of the code: a token made by an older gpusim replays
where its kernels still exist (or moved unchanged), and says plainly, in one line, that it comes from an older
version of gpusim where they do not."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

import gpusim
from gpusim import Device
from gpusim.backends.sim import TOKEN_FORMAT, decode_token, read_token
from gpusim.cli import main
from gpusim.errors import InvalidArgument, ReplayMismatch
from gpusim.explore import explore, replay

# Made by gpusim at commit 5728b9d (before the families moved into folders; token format 1: no version of gpusim, no
# kernel fingerprint), with `gpusim demo --threads 4 --block 4 --json` and `explore("lost_update", budget=50)`.
# The demo's kernel was gpusim.demo.racy_count then (it is gpusim.teaching.demo.racy_count now); the zoo's
# lost update still launches gpusim.zoo.classic_kernels.count_plain.
OLD_DEMO = ("gs1-eNodjFEKwjAUBO-y35tS26iQq0iRmjxqaZpI0ghSenejPzswMLvjDXMi_FiCfUqGue1YJAXxMJheJc9r42SNTRrt525jCRuIK"
            "c3u3z18tAuMJnLNXfFSH1qqnh1Vx54tdd1z5eUnrlR6OIbjCxqfI60")
OLD_LOST_UPDATE = ("lost_update@gs1-eNolzEEKgzAQRuG7_OsxqKGbXKWIpGOwwTERp-mi4t0NdvfgwXfgC9cRxJfE76BwzwNL2FMQOMxb0bi"
                   "aX86GxatGHv9PDeeSPuMmPiYQ5j1Ot_OSzAucJWjlpiKhii01PfXUWLLU0qPGcA7nBSfQJ7s")


def _envelope(document: dict) -> str:
    """A token written by hand from its JSON document (the ``gs1-`` envelope), not by the code under test."""
    payload = json.dumps(document, separators=(",", ":")).encode()
    return "gs1-" + base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")


def _document(token: str) -> dict:
    body = token.removeprefix("gs1-")
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))


@pytest.fixture(scope="module")
def failure():
    return explore("lost_update", budget=50).failure


def _one_line_error(capsys) -> str:
    error = capsys.readouterr().err.strip()
    assert error.splitlines() == [error], error
    return error


def test_a_new_token_names_its_format_gpusim_version_and_kernel_fingerprint(failure):
    document = _document(failure.token)
    assert document["v"] == TOKEN_FORMAT == 2 and document["gpusim"] == gpusim.__version__
    (launch,) = document["launches"]
    assert launch["kernel"] == "gpusim.zoo.classic_kernels.count_plain"
    assert isinstance(launch["source"], str) and len(launch["source"]) == 16
    token = read_token(failure.token)
    assert (token.format, token.made_by, token.launches) == (2, gpusim.__version__, document["launches"])


def test_an_old_token_whose_kernels_still_exist_replays_the_same_interleaving():
    assert read_token(OLD_LOST_UPDATE.split("@", 1)[1]).format == 1
    again = replay(OLD_LOST_UPDATE)
    assert again.kind == "invariant" and "lost" in again.message
    # the interleaving of the failure that explore reported then (the shrinker now reaches another first)
    assert [(e.block, e.thread, e.op, e.value) for e in again.trace] == [
        (0, 1, "load", 0), (0, 1, "store", 1), (0, 2, "load", 1), (0, 0, "load", 1), (0, 0, "store", 2),
        (0, 2, "store", 2)]
    # a token without any "v" is format 1 too
    bare = {"launches": _document(OLD_LOST_UPDATE.split("@", 1)[1])["launches"]}
    assert read_token(_envelope(bare)).format == 1
    assert replay("lost_update@" + _envelope(bare)).trace == again.trace


def test_an_old_token_whose_kernel_is_gone_says_it_comes_from_an_older_version(capsys):
    assert decode_token(OLD_DEMO)[0]["kernel"] == "gpusim.demo.racy_count"
    assert main(["demo", "--threads", "4", "--block", "4", "--replay", OLD_DEMO]) == 2
    error = _one_line_error(capsys)
    assert "comes from an older version of gpusim (token format 1" in error
    assert "gpusim.demo.racy_count" in error and "gpusim.teaching.demo.racy_count" in error


def test_explore_replay_of_an_old_token_of_a_moved_kernel_exits_2_in_one_line(capsys, failure):
    launches = _document(failure.token)["launches"]
    moved = [{key: value for key, value in launch.items() if key != "source"} for launch in launches]
    moved[0]["kernel"] = "gpusim.classic_kernels.count_plain"  # where an older gpusim might have kept it
    token = _envelope({"v": 1, "launches": moved})
    assert main(["explore", "--replay", f"lost_update@{token}"]) == 2
    error = _one_line_error(capsys)
    assert "comes from an older version of gpusim" in error and "gpusim.classic_kernels.count_plain" in error
    with pytest.raises(ReplayMismatch, match="older version of gpusim"):
        replay(f"lost_update@{token}")


def test_a_token_of_a_kernel_moved_unchanged_replays_by_its_fingerprint(failure):
    document = _document(failure.token)
    document["launches"][0]["kernel"] = "gpusim.kernels_of_a_later_layout.count_plain"
    again = replay("lost_update@" + _envelope(document))
    assert again.trace == failure.trace and again.kind == "invariant"
    # the fingerprint is of the code: a different kernel of the same name is refused, saying why
    document["launches"][0]["source"] = "0" * 16
    with pytest.raises(ReplayMismatch, match="older version of gpusim|another version of gpusim"):
        replay("lost_update@" + _envelope(document))


def test_a_token_of_a_kernel_that_exists_but_is_not_this_launch_is_the_usual_mismatch(failure):
    document = _document(failure.token)
    document["launches"][0]["kernel"] = "gpusim.teaching.demo.racy_count"
    del document["launches"][0]["source"]
    with pytest.raises(ReplayMismatch, match="launch 1 is gpusim.teaching.demo.racy_count") as caught:
        replay("lost_update@" + _envelope(document))
    assert "version" not in str(caught.value)


def test_an_old_token_of_a_scenario_gone_says_so_and_a_current_one_lists_the_scenarios(capsys):
    old = "renamed_entry@" + OLD_LOST_UPDATE.split("@", 1)[1]
    assert main(["explore", "--replay", old]) == 2
    error = _one_line_error(capsys)
    assert "scenario 'renamed_entry'" in error and "comes from an older version of gpusim" in error
    current = "renamed_entry@" + explore("lost_update", budget=50).failure.token
    with pytest.raises(InvalidArgument, match="is not registered; known: .*lost_update"):
        replay(current)


def test_a_token_of_a_newer_format_is_refused_in_one_line(capsys):
    newer = _envelope({"v": TOKEN_FORMAT + 1, "gpusim": "99.0", "launches": []})
    with pytest.raises(InvalidArgument, match="newer version of gpusim"):
        Device("sim", schedule=newer)
    assert main(["explore", "--replay", f"lost_update@{newer}"]) == 2
    assert "newer version of gpusim" in _one_line_error(capsys)


def test_a_token_with_launches_of_the_wrong_shape_is_damaged():
    with pytest.raises(InvalidArgument, match="damaged"):
        read_token(_envelope({"v": 2, "launches": [{"kernel": "k"}]}))
    with pytest.raises(InvalidArgument, match="damaged"):
        read_token(_envelope({"v": "two", "launches": []}))


def test_the_fingerprint_ignores_docstring_comments_and_decorators_but_not_code(tmp_path):
    import importlib.util

    from gpusim.backends.sim.tokens import kernel_fingerprint

    sources = ('def bump(counter):\n    """One."""\n    counter[0] += 1  # a comment\n',
               "import functools\n\n\n@functools.lru_cache\ndef bump(counter):\n    counter[0] += (\n        1)\n",
               "def bump(counter):\n    counter[0] += 2\n",
               "def bumps(counter):\n    counter[0] += 1\n")
    prints = []
    for number, text in enumerate(sources):
        path = tmp_path / f"fingerprint_{number}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(f"fingerprint_{number}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = getattr(module, "bump", None) or module.bumps
        prints.append(kernel_fingerprint(getattr(fn, "__wrapped__", fn)))
    assert prints[0] is not None and prints[0] == prints[1]
    assert len({prints[0], prints[2], prints[3]}) == 3  # other code, other name
