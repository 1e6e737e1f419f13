"""Charlesworth's published Big 2 network as a player: ``charlesworth:PATH`` everywhere an agent goes.

Henry Charlesworth's PPO agent (``big2_PPOalgorithm``, the system of seed paper 001) is the
strongest public Big 2 network. His repository has no licence, so nothing of it ships here:
the user downloads his parameter file (``modelParameters136500``) and names it,
``charlesworth:PATH``. This module rebuilds the network from his published architecture in
numpy and feeds it the 412 numbers his game computes, from our game's public history:

* **The file** is a ``joblib`` pickle of a list of ten float32 arrays. It is read by
  :func:`load_parameters` without unpickling anything: a restricted reader accepts only the
  three globals such a file names (joblib's array wrapper, ``numpy.ndarray`` and
  ``numpy.dtype``), reads each array's raw bytes after its header, and checks every shape.
* **The network** (:class:`CharlesworthNetwork`): 412 inputs, a 512-unit ReLU layer, then a
  256-unit ReLU layer and 1695 logits (the policy), and, from the first layer, a 256-unit ReLU
  layer and one output (the value). Illegal actions get ``-inf``; his agent samples from the
  softmax (:class:`CharlesworthPolicy` does the same by default, or takes the argmax).
* **The input** (:func:`network_input`): his 412 numbers, as his game updates them move by
  move, for the player on move:

  ====== ===== ===============================================================
  slice  size  content
  ====== ===== ===============================================================
  0:286  286   13 hand slots of 22: the card's value one-hot (3 .. 2), its suit
               (D, C, H, S), and whether its rank is held at least twice, three
               times, four times, whether it is in a run of five or more
               consecutive values (J-Q-K-A-2 counts) and whether its suit is held
               five times or more; empty slots are zero
  286:367 81   per other player (next, across, previous), 27 numbers: cards
               left one-hot (1 .. 13), which of A-D .. 2-S they have played, and
               whether they have ever played a pair, a triple, a four-card hand,
               a straight, a flush, a full house
  367:383 16   which of the sixteen cards Q-D .. 2-S anyone has played
  383:412 29   the last play: its key card's value and suit, whether you have
               control, its kind (single, pair, triple, two pair, four of a kind,
               straight, flush, full house) and whether 0, 1 or 2 passes followed
  ====== ===== ===============================================================

  It is reproduced with his game's quirks, since the trained weights saw them: a plain
  straight also sets the full-house flags and is keyed by its middle card with no suit (his
  full-house test returns a tuple, always true), the last-play section is cleared for the
  player who made it, and passes update it only for the three players other than the passer.

He plays under the ``charlesworth`` rules (:meth:`big2_env.engine.rules.Rules.preset`): the
network was trained under them, and :class:`CharlesworthPolicy` refuses other rules.

Example (a made-up file in his format; a real one is his ``modelParameters136500``):
    >>> import numpy as np, tempfile, os
    >>> from big2_env.players.charlesworth import write_parameters, load_parameters
    >>> rng = np.random.default_rng(0)
    >>> arrays = [rng.normal(size=s).astype(np.float32) * 0.01 for s in PARAMETER_SHAPES]
    >>> path = os.path.join(tempfile.mkdtemp(), "params")
    >>> write_parameters(arrays, path)
    >>> [a.shape for a in load_parameters(path)][:2]
    [(412, 512), (512,)]
"""

from __future__ import annotations

import io
import os
import pickle
import struct
from typing import Any, Sequence

import numpy as np

from ..engine.cards import NUM_CARDS
from ..engine.rules import Rules
from ..errors import LoadError
from ..observations.extended import history_moves
from ..observations.paper import NUM_ACTIONS, OBS_HAND, PAD_CARD
from .base import Observation, Policy

__all__ = [
    "INPUT_SIZE",
    "PARAMETER_SHAPES",
    "CharlesworthNetwork",
    "CharlesworthPolicy",
    "load_parameters",
    "network_input",
    "observation_input",
    "write_parameters",
]

INPUT_SIZE = 412
PARAMETER_SHAPES: tuple[tuple[int, ...], ...] = (
    (INPUT_SIZE, 512), (512,), (512, 256), (256,), (256, NUM_ACTIONS), (NUM_ACTIONS,), (512, 256), (256,), (256, 1), (1,),
)
"""The ten arrays of his parameter file, in order: fc1 weights and biases, fc2, the policy head
``pi``, fc3 (the value branch, fed by fc1) and the value head ``vf``."""

MAX_FILE_BYTES = 64 << 20
_WRAPPER = ("joblib.numpy_pickle", "NumpyArrayWrapper")
_DTYPES: dict[str, np.dtype] = {"f4": np.dtype("<f4"), "<f4": np.dtype("<f4"), "f8": np.dtype("<f8"), "<f8": np.dtype("<f8")}


# ----------------------------------------------------------------------------- the file
class _ArrayHeader:
    """What the file says about one array (its joblib wrapper's state); the bytes follow it."""

    def __setstate__(self, state: Any) -> None:
        if not isinstance(state, dict):
            raise pickle.UnpicklingError("an array header must be a dict")
        self.state = state


class _DType:
    """A dtype named in the file (``numpy.dtype('f4', False, True)``), kept as its name."""

    def __init__(self, name: Any, *_: Any) -> None:
        if name not in _DTYPES:
            raise pickle.UnpicklingError(f"array dtype {name!r} is not allowed (float32 or float64 only)")
        self.dtype: np.dtype = _DTYPES[name]

    def __setstate__(self, state: Any) -> None:
        if not isinstance(state, tuple) or len(state) < 2 or state[1] not in ("<", "|", "="):
            raise pickle.UnpicklingError(f"only little-endian arrays are allowed; got dtype state {state!r}")


_NDARRAY = object()


_PythonUnpickler: Any = getattr(pickle, "_Unpickler")  # the pure-Python unpickler: its opcodes can be overridden


class _Reader(_PythonUnpickler):
    """A restricted reader for joblib's array pickles: only three globals exist, and each array's
    raw bytes are read from the stream right after its header (as joblib writes them)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == _WRAPPER:
            return _ArrayHeader
        if (module, name) == ("numpy", "ndarray"):
            return _NDARRAY
        if (module, name) == ("numpy", "dtype"):
            return _DType
        raise pickle.UnpicklingError(f"the file names {module}.{name}: not a parameter file of Charlesworth's network")

    def load_build(self) -> None:
        super().load_build()
        header = self.stack[-1]
        if isinstance(header, _ArrayHeader):
            self.stack[-1] = self._array(header.state)

    dispatch = dict(_PythonUnpickler.dispatch)
    dispatch[pickle.BUILD[0]] = load_build

    def _array(self, state: dict) -> np.ndarray:
        shape, dtype = state.get("shape"), state.get("dtype")
        if state.get("subclass") is not _NDARRAY or not isinstance(dtype, _DType) or state.get("order") not in ("C", "F"):
            raise pickle.UnpicklingError(f"unexpected array header {sorted(state)}")
        if not isinstance(shape, tuple) or len(shape) > 2 or not all(type(n) is int and 0 < n <= 1 << 20 for n in shape):
            raise pickle.UnpicklingError(f"unexpected array shape {shape!r}")
        if state.get("numpy_array_alignment_bytes"):  # newer joblib: a padding length byte, then the padding
            (padding,) = self.read(1)
            self.read(padding)
        count = int(np.prod(shape))
        raw = self.read(count * dtype.dtype.itemsize)
        if len(raw) != count * dtype.dtype.itemsize:
            raise pickle.UnpicklingError("the file ends inside an array")
        array = np.frombuffer(raw, dtype=dtype.dtype).reshape(shape, order=state["order"])
        return np.ascontiguousarray(array, dtype=np.float32)


def load_parameters(path: str | os.PathLike[str]) -> list[np.ndarray]:
    """The ten float32 arrays of Charlesworth's parameter file (``joblib.dump`` of his network's
    variables), read without unpickling: see the module docstring. Raises
    :class:`~big2_env.errors.LoadError` naming what is wrong for a missing file, another kind of
    file, or arrays of other shapes than :data:`PARAMETER_SHAPES`."""
    text = os.fspath(path)
    try:
        size = os.path.getsize(text)
        if size > MAX_FILE_BYTES:
            raise LoadError(f"{text!r} has {size:,} bytes: too big for Charlesworth's parameter file (about 3.6 MB)")
        with open(text, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise LoadError(f"cannot read Charlesworth's parameter file {text!r}: {err.strerror or err}") from None
    try:
        arrays = _Reader(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, KeyError, IndexError, struct.error) as err:
        raise LoadError(f"{text!r} is not a parameter file of Charlesworth's network: {err}") from None
    if not isinstance(arrays, list) or [getattr(a, "shape", None) for a in arrays] != list(PARAMETER_SHAPES):
        found = [getattr(a, "shape", type(a).__name__) for a in arrays] if isinstance(arrays, list) else type(arrays).__name__
        raise LoadError(f"{text!r} holds {found}, not the ten arrays of Charlesworth's network {list(PARAMETER_SHAPES)}")
    return arrays


def write_parameters(arrays: Sequence[np.ndarray], path: str | os.PathLike[str]) -> None:
    """Write ``arrays`` (the shapes of :data:`PARAMETER_SHAPES`) in the format of his files, as
    ``joblib.dump`` writes a list of float32 arrays (pickle protocol 3, each array's raw bytes
    after its header). For tests and for converting a network trained elsewhere."""
    if [np.shape(a) for a in arrays] != list(PARAMETER_SHAPES):
        raise ValueError(f"need arrays of shapes {list(PARAMETER_SHAPES)}; got {[np.shape(a) for a in arrays]}")
    out = io.BytesIO()
    out.write(b"\x80\x03]q\x00(")  # PROTO 3, EMPTY_LIST, BINPUT 0, MARK
    for array in arrays:
        out.write(b"cjoblib.numpy_pickle\nNumpyArrayWrapper\n)\x81}(")  # GLOBAL, EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, MARK
        out.write(_text("subclass") + b"cnumpy\nndarray\n")
        out.write(_text("shape") + b"(" + b"".join(b"M" + struct.pack("<H", n) for n in array.shape) + b"t")
        out.write(_text("order") + _text("C"))
        out.write(_text("dtype") + b"cnumpy\ndtype\n" + _text("f4") + b"K\x00K\x01\x87R")  # numpy.dtype('f4', 0, 1)
        out.write(b"(K\x03" + _text("<") + b"NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb")  # its state, BUILD
        out.write(_text("allow_mmap") + b"\x88ub")  # NEWTRUE, SETITEMS, BUILD
        out.write(np.ascontiguousarray(array, dtype="<f4").tobytes())
    out.write(b"e.")  # APPENDS, STOP
    with open(path, "wb") as handle:
        handle.write(out.getvalue())


def _text(value: str) -> bytes:
    raw = value.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw  # BINUNICODE


# ----------------------------------------------------------------------------- the network
class CharlesworthNetwork:
    """His network in numpy (float32): ``logits(x)`` and ``value(x)`` for (n, 412) inputs."""

    def __init__(self, arrays: Sequence[np.ndarray]) -> None:
        if [np.shape(a) for a in arrays] != list(PARAMETER_SHAPES):
            raise ValueError(f"need arrays of shapes {list(PARAMETER_SHAPES)}")
        self.w1, self.b1, self.w2, self.b2, self.wp, self.bp, self.w3, self.b3, self.wv, self.bv = (
            np.asarray(a, dtype=np.float32) for a in arrays
        )

    def logits(self, x: np.ndarray) -> np.ndarray:
        h1 = np.maximum(x @ self.w1 + self.b1, 0)
        return np.maximum(h1 @ self.w2 + self.b2, 0) @ self.wp + self.bp

    def value(self, x: np.ndarray) -> np.ndarray:
        h1 = np.maximum(x @ self.w1 + self.b1, 0)
        return (np.maximum(h1 @ self.w3 + self.b3, 0) @ self.wv + self.bv)[:, 0]


# ----------------------------------------------------------------------------- the input
_HAND, _OTHERS, _RECORD, _LAST = 0, 286, 367, 383
_BLOCK = 27
# the last play's kind, at _LAST + 18 ..: single, pair, triple, two pair, quads, straight, flush, full house
_SINGLE, _PAIR, _TRIPLE, _TWO_PAIR, _QUADS, _STRAIGHT, _FLUSH, _FULL_HOUSE = range(18, 26)
_CONTROL, _NO_PASS, _ONE_PASS, _TWO_PASSES = 17, 26, 27, 28
_SUIT_SLOT = (13, 14, 15, 16)  # by our suit index (D, C, H, S); his numbers them card % 4 on cards 1..52: 1, 2, 3, 0


def _value(card: int) -> int:
    """His card value 1 (a three) .. 13 (a two) of our card id."""
    return (card >> 2) + 1


def _consecutive(play: Sequence[int]) -> bool:
    return all(_value(b) == _value(a) + 1 for a, b in zip(play, play[1:]))


def _same_rank(play: Sequence[int]) -> bool:
    return len({c >> 2 for c in play}) == 1


class _Inputs:
    """The four players' 412 numbers, updated move by move as his game updates them (seats are
    ours, relative or absolute: the next player after ``s`` is ``s + 1``)."""

    def __init__(self) -> None:
        self.x = np.zeros((4, INPUT_SIZE), dtype=np.float32)
        for k in range(3):
            self.x[:, _OTHERS + _BLOCK * k + 12] = 1  # every other player holds 13 cards
        self.passes = 0
        self.left = [13, 13, 13, 13]

    def play(self, seat: int, cards: Sequence[int]) -> None:
        self.left[seat] -= len(cards)
        self.passes = 0
        x = self.x
        kind, key, suited = self._kind(cards)
        for k in range(3):  # the player k+1 seats behind the mover sees the mover in block k
            viewer = (seat - 1 - k) % 4
            block = _OTHERS + _BLOCK * k
            x[viewer, block : block + 13] = 0
            if self.left[seat]:  # (his game ends before updating after the last card)
                x[viewer, block + self.left[seat] - 1] = 1
            for c in cards:
                if c >= 44:  # A-D .. 2-S
                    x[viewer, block + 13 + c - 44] = 1
            x[viewer, _LAST:] = 0
            for flag in self._flags(cards):
                x[viewer, block + flag] = 1
            for slot in kind:
                x[viewer, _LAST + slot] = 1
            x[viewer, _LAST + key - 1] = 1
            if suited is not None:
                x[viewer, _LAST + _SUIT_SLOT[suited]] = 1
            x[viewer, _LAST + _NO_PASS] = 1
        x[seat, _LAST:] = 0
        for c in cards:
            if c >= 36:  # Q-D .. 2-S
                x[:, _RECORD + c - 36] = 1

    def pass_(self, seat: int) -> None:
        viewers = [(seat - 1 - k) % 4 for k in range(3)]
        x = self.x
        if self.passes < 2:
            for viewer in viewers:
                x[viewer, _LAST + _NO_PASS :] = 0
                x[viewer, _LAST + (_ONE_PASS if self.passes == 0 else _TWO_PASSES)] = 1
            self.passes += 1
        else:  # the third pass: the player after the passer takes control
            for viewer in viewers:
                x[viewer, _LAST:] = 0
            x[(seat + 1) % 4, _LAST + _CONTROL] = 1
            self.passes = 0

    @staticmethod
    def _flags(cards: Sequence[int]) -> list[int]:
        """The block flags a play sets (pair 21 .. full house 26), with his straight quirk."""
        n = len(cards)
        if n == 2:
            return [21]
        if n == 3:
            return [22]
        if n == 4:
            return [23]
        if n != 5:
            return []
        flags = []
        if _consecutive(cards):
            flags.append(24)
        if len({c & 3 for c in cards}) == 1:
            flags.append(25)
        else:
            flags.append(26)  # his full-house test is always true here
        return flags

    @staticmethod
    def _kind(cards: Sequence[int]) -> tuple[list[int], int, int | None]:
        """The last-play slots a play sets, its key card's value and its suit (``None``: no suit)."""
        n = len(cards)
        if n == 1:
            return [_SINGLE], _value(cards[0]), cards[0] & 3
        if n == 2:
            return [_PAIR], _value(cards[1]), cards[1] & 3
        if n == 3:
            return [_TRIPLE], _value(cards[2]), cards[2] & 3
        if n == 4:
            two_pair = _same_rank(cards[:2]) and _same_rank(cards[2:]) and not _same_rank(cards)
            return [_TWO_PAIR if two_pair else _QUADS], _value(cards[3]), cards[3] & 3
        kind: list[int] = []
        key: int = _value(cards[4])
        suited: int | None = cards[4] & 3
        if _consecutive(cards):
            kind.append(_STRAIGHT)
        if len({c & 3 for c in cards}) == 1:
            kind.append(_FLUSH)
        else:  # a full house, or (his quirk) a plain straight: keyed by the middle card, no suit
            kind.append(_FULL_HOUSE)
            key, suited = _value(cards[2]), None
        return kind, key, suited


def _hand_numbers(hand: Sequence[int]) -> np.ndarray:
    """The 286 hand numbers of a sorted hand (see the module docstring)."""
    out = np.zeros(286, dtype=np.float32)
    ranks = [0] * 13
    suits = [0] * 4
    for c in hand:
        ranks[c >> 2] += 1
        suits[c & 3] += 1
    in_run = [False] * 13
    start = 0
    present = [r for r in range(13) if ranks[r]]
    for i in range(1, len(present) + 1):  # maximal runs of consecutive values held
        if i == len(present) or present[i] != present[i - 1] + 1:
            if i - start >= 5:
                for r in present[start:i]:
                    in_run[r] = True
            start = i
    for slot, c in enumerate(hand):
        base = 22 * slot
        r = c >> 2
        out[base + r] = 1
        out[base + 13 + (c & 3)] = 1
        out[base + 17] = ranks[r] >= 2
        out[base + 18] = ranks[r] >= 3
        out[base + 19] = ranks[r] == 4
        out[base + 20] = in_run[r]
        out[base + 21] = suits[c & 3] >= 5
    return out


def network_input(history: Sequence[tuple[int, Sequence[int]]], hand: Sequence[int]) -> np.ndarray:
    """His 412 numbers for the player on move (seat 0), from the public move history in seats
    relative to that player (``(seat, cards)`` pairs from the first move, ``()`` for a pass: what
    :func:`big2_env.observations.extended.history_moves` reads from an observation's
    ``"history"``) and the player's hand (card ids).

    >>> x = network_input([(3, (0,))], [4, 8, 9, 10, 11, 20, 24, 28, 32, 36, 40, 44, 48])
    >>> int(x[383 + 18]), int(x[383 + 26]), int(x[383]), int(x[383 + 13])  # a single 3-D, no pass yet
    (1, 1, 1, 1)
    """
    inputs = _Inputs()
    for seat, cards in history:
        if cards:
            inputs.play(seat, sorted(cards))
        else:
            inputs.pass_(seat)
    x = inputs.x[0].copy()
    x[:286] = _hand_numbers(sorted(hand))
    return x


def observation_input(obs: Observation) -> np.ndarray:
    """His 412 numbers for the player on move of an extended observation (its ``"history"`` and the
    hand in its ``"observation"``): what :class:`CharlesworthPolicy` and a network trained on his
    inputs (``agents``, ``NetworkConfig(observation="charlesworth")``) read at the table."""
    if "history" not in obs:
        raise ValueError("Charlesworth's network reads the move history: give it the extended view (observation_kind)")
    vector = np.asarray(obs["observation"])
    hand = [int(c) for c in vector[OBS_HAND] if c != PAD_CARD]
    if any(not 0 <= c < NUM_CARDS for c in hand) or len(set(hand)) != len(hand):
        raise ValueError("the observation's hand slots must hold distinct card ids 0..51, then padding")
    return network_input(history_moves(obs["history"]), hand)


# ----------------------------------------------------------------------------- the player
class CharlesworthPolicy(Policy):
    """Charlesworth's network as a :class:`~big2_env.players.base.Policy` (``charlesworth:PATH``).

    Args:
        path: his parameter file (``modelParameters136500`` from his repository), or
        arrays: the ten arrays themselves (:data:`PARAMETER_SHAPES`).
        rules: must be the ``charlesworth`` preset (the rules the network was trained under).
        greedy: take the most likely legal action instead of sampling from the softmax as his agent does.
        seed: the sampling generator's seed.
    """

    name = "charlesworth"
    observation_kind = "extended"  # the move history, to rebuild his numbers

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        arrays: Sequence[np.ndarray] | None = None,
        rules: Rules | str | dict | None = "charlesworth",
        greedy: bool = False,
        seed: int | None = None,
    ) -> None:
        if Rules.coerce(rules) != Rules.preset("charlesworth"):
            raise ValueError(
                "Charlesworth's network was trained under the 'charlesworth' rules: play it with rules='charlesworth'"
            )
        if (path is None) == (arrays is None):
            raise ValueError("give either the path of his parameter file or the arrays")
        if not isinstance(greedy, bool):
            raise ValueError(f"greedy must be True or False; got {greedy!r}")
        self.network = CharlesworthNetwork(load_parameters(path) if path is not None else list(arrays or ()))
        self.rules = Rules.preset("charlesworth")
        self.greedy = greedy
        self.rng = np.random.default_rng(seed)
        self.path = None if path is None else os.fspath(path)

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def probabilities(self, obs: Observation) -> tuple[np.ndarray, float]:
        """The network's probability of each legal action (in the order of ``np.flatnonzero(mask)``)
        and its value estimate (in his reward scale: a game's score / 5)."""
        actions, x = self._read(obs)
        logits = self.network.logits(x[None])[0][actions]
        p = np.exp(logits - logits.max())
        return p / p.sum(), float(self.network.value(x[None])[0])

    def act(self, obs: Observation) -> int:
        actions, x = self._read(obs)
        logits = self.network.logits(x[None])[0][actions].astype(np.float64)
        if self.greedy:
            return int(actions[int(np.argmax(logits))])
        gumbel = -np.log(-np.log(self.rng.random(len(actions))))  # a sample from the softmax
        return int(actions[int(np.argmax(logits + gumbel))])

    def _read(self, obs: Observation) -> tuple[np.ndarray, np.ndarray]:
        mask = np.asarray(obs["action_mask"])
        if mask.shape != (NUM_ACTIONS,):
            raise ValueError(f"action_mask must have shape ({NUM_ACTIONS},); got {mask.shape}")
        actions = np.flatnonzero(mask)
        if not len(actions):
            raise ValueError("the observation has no legal action: is this agent on move?")
        return actions, observation_input(obs)

    def __repr__(self) -> str:
        source = self.path if self.path is not None else "arrays"
        return f"CharlesworthPolicy({source!r}, greedy={self.greedy})"

