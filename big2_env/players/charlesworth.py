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

from ..engine.cards import NUM_CARDS, check_hand
from ..engine.rules import Rules
from ..errors import LoadError
from ..observations.extended import history_moves
from ..observations.layout import CHARLESWORTH_SIZE
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

INPUT_SIZE = CHARLESWORTH_SIZE
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
def network_input(history: Sequence[tuple[int, Sequence[int]]], hand: Sequence[int]) -> np.ndarray:
    """His 412 numbers for the player on move (seat 0), from the public move history in seats
    relative to that player (``(seat, cards)`` pairs from the first move, ``()`` for a pass: what
    :func:`big2_env.observations.extended.history_moves` reads from an observation's
    ``"history"``) and the player's hand (card ids), replayed move by move by the compiled view
    (:func:`big2_env.observations.charlesworth.replay_input`). Raises ``ValueError`` for a seat
    outside 0..3, a malformed card set, or a card played twice.

    >>> x = network_input([(3, (0,))], [4, 8, 9, 10, 11, 20, 24, 28, 32, 36, 40, 44, 48])
    >>> int(x[383 + 18]), int(x[383 + 26]), int(x[383]), int(x[383 + 13])  # a single 3-D, no pass yet
    (1, 1, 1, 1)
    """
    from ..observations.charlesworth import replay_input  # numba loads at the first input, not at import

    seats = np.empty(len(history), dtype=np.int64)
    plays = np.empty(len(history), dtype=np.int64)
    played = 0
    for i, (seat, cards) in enumerate(history):
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < 4:
            raise ValueError(f"history move {i}: the seat must be an int in 0..3; got {seat!r}")
        seats[i] = seat
        plays[i] = check_hand(cards, f"history move {i}'s cards")
        if played & plays[i]:
            raise ValueError(f"history move {i} plays a card played before")
        played |= int(plays[i])
    x = np.empty(INPUT_SIZE, dtype=np.float32)
    replay_input(seats, plays, check_hand(hand, "hand"), x)
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

    def probabilities(self, obs: Observation) -> dict[int, float]:
        """``{action: probability}`` over the legal actions: the network's softmax."""
        actions, logits = self._logits(obs)
        p = np.exp(logits - logits.max())
        return dict(zip(actions.tolist(), (p / p.sum()).tolist()))

    def observation_value(self, obs: Observation) -> float:
        """The network's value estimate, in his reward scale (a game's score / 5)."""
        return float(self.network.value(observation_input(obs)[None])[0])

    def act(self, obs: Observation) -> int:
        actions, logits = self._logits(obs)
        if self.greedy:
            return int(actions[int(np.argmax(logits))])
        gumbel = -np.log(-np.log(self.rng.random(len(actions))))  # a sample from the softmax
        return int(actions[int(np.argmax(logits + gumbel))])

    def _logits(self, obs: Observation) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions and their logits (float64)."""
        mask = np.asarray(obs["action_mask"])
        if mask.shape != (NUM_ACTIONS,):
            raise ValueError(f"action_mask must have shape ({NUM_ACTIONS},); got {mask.shape}")
        actions = np.flatnonzero(mask)
        if not len(actions):
            raise ValueError("the observation has no legal action: is this agent on move?")
        return actions, self.network.logits(observation_input(obs)[None])[0][actions].astype(np.float64)

    def __repr__(self) -> str:
        source = self.path if self.path is not None else "arrays"
        return f"CharlesworthPolicy({source!r}, greedy={self.greedy})"

