"""Self-play training (PPO or a value learner), CleanRL style: one dataclass of arguments, one loop you can read.

Run it as ``big2 train`` (see ``big2 train --help``) or from Python::

    from agents.train import TrainArgs, train
    train(TrainArgs(algo="ppo", batches=1000, out="runs/ppo"))                    # the recipe that learns
    train(TrainArgs(algo="ppo", preset="paper", batches=5000, out="runs/paper"))  # the paper's exact settings
    train(TrainArgs.from_preset("charlesworth", stop_after=2000, out="runs/his"))  # his recipe, his rules
    train(TrainArgs(algo="mcq", curriculum="self", batches=5000, out="runs/mcq"))

The defaults (``preset="default"``) are PPO on the compiled vector env, 512 games per
batch, lr 1e-3 with warm-up and cosine decay to a tenth, scores / 13, 2 epochs of
4096-decision minibatches, torch threads on the idle cores. ``preset="paper"`` takes the
paper's exact hyperparameters instead (lr 3e-5 decaying to 0, raw scores, 64 games per
batch, minibatches of 256). ``charlesworth``, his recipe, also sets fields that have plain
defaults (rules, network, cadence): build it with :meth:`TrainArgs.from_preset`. Fields set
explicitly override any preset; a run saves its arguments with every default made concrete, so
it resumes with the same ones.

Each batch: the curriculum seats ``games_per_batch`` fresh deals
(:mod:`agents.curriculum`), :func:`agents.collect.rollout.collect` plays them with one
batched forward pass per step (PPO samples from its policy, the value learners
play epsilon-greedy), then :func:`agents.learners.ppo.ppo_update` runs the PPO epochs or
:func:`agents.learners.value.value_update` takes the value learner's one step (``mcq``,
``sarsa``, ``qlearning``; the last two also keep a target network, copied every
``target_sync`` batches). PPO's learning rate follows warm-up and cosine decay;
the value learners' is constant and their epsilon decays linearly (the paper's
settings). Evaluation samples PPO's policy and plays the value learners greedily.

What a run writes in ``out``:

* ``checkpoint.pt``: the full training state (model, optimiser, schedule position,
  random states of Python / numpy / torch, the game-seed, seat, action and
  minibatch streams, batch counter, curriculum incl. its snapshot pool, the
  target network of SARSA and Q-learning, the number of processes), written
  atomically every ``checkpoint_every`` batches, whenever ``checkpoint_minutes``
  have passed since the last one, at the end, and when the run is interrupted
  (Ctrl-C or ``SIGTERM``: the state of the last finished batch). So a run killed
  even by ``SIGKILL`` loses at most a couple of minutes. ``resume=True``
  continues from it exactly: a run interrupted and resumed ends with the same
  parameters, bit for bit, as one that ran straight through (same machine,
  thread count and number of processes; resuming with another number of
  processes is refused). Resuming a finished run trains nothing (extend it with a
  larger ``batches``). A resumed run keeps the ``stop_after`` it was started (or last
  resumed) with unless it is given again, so it stops where it was planned to; at or past
  that batch it trains nothing (give a larger ``stop_after``, or ``0`` to run to
  ``batches``). Stale temporary files of an interrupted write are removed
  when a run starts or resumes. A loss or weight that becomes non-finite stops the
  run with :class:`TrainingDiverged`, leaving the checkpoint on disk as it was;
* ``model.pt``: the policy alone (config + weights, under 1 MB; written just
  before each checkpoint), for
  ``big2 eval --agent``, ``big2 play --opponent`` and :mod:`agents.pretrained`;
* ``models/model_BATCH.pt``: with ``keep_models_every`` N, the policy every N batches (the
  snapshots ``big2 average`` turns into one weight-averaged policy);
* ``metrics.csv``: evaluations every ``eval_every`` batches (and at batch 0 and
  the end) against each of ``eval_opponents`` with
  :func:`big2_env.evaluation.evaluate` (``eval_games`` games, fixed seed
  ``eval_seed`` so every checkpoint meets the same deals);
* ``train_log.csv``: one row per batch (learning rate, PPO's losses, entropy,
  approximate KL, clip fraction, explained variance and value/policy gradient
  ratio, or the value learner's epsilon, loss, mean Q and target; decisions,
  rollout and update seconds, decisions/s). A PPO run whose clip has not bound
  for 50 batches in a row prints a warning that its policy is not learning
  (:class:`agents.learners.ppo.ClipMonitor`);
* ``tb/``: the same as TensorBoard scalars (when the ``tensorboard`` package is
  installed);
* ``learning_curves.png``: win rate and mean score vs games, one line per
  opponent (like the paper's Figure 2), and ``training_health.png``: approximate
  KL, clip fraction, explained variance, entropy, the value/policy gradient ratio
  and the learning rate batch by batch; written at the end (``big2 plot DIR``
  redraws them at any time);
* ``args.json``: the arguments of the run, its paths without the machine's folders
  (:func:`big2_env.records.portable`: his parameter file by its name, for one).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Collection, Mapping

import torch

from big2_env.records import portable

from .checkpoint import CHECKPOINT_KIND, CheckpointError, check_config, read_file, remove_stale_temporaries
from .config import (
    ALGO_DEFAULTS, EVAL_CLASSES, LEGACY_PPO, RESUME_MUTABLE, VALUE_ALGOS, NetworkConfig, TrainArgs,
    args_from_mapping, duel_deals, eval_opponent_name,
)
from .learners.ppo import ClipMonitor
from .network import Big2Net, count_parameters
from .runlog import METRICS_FIELDS, METRICS_NAME, TRAIN_LOG_FIELDS, TRAIN_LOG_NAME, CsvLog, Progress, tensorboard_writer
from .trainer import (
    CHECKPOINT_NAME,
    MODEL_NAME,
    MODELS_DIR,
    Trainer,
    TrainingDiverged,
    free_cores,
    idle_cores,
    process_layout,
    resolve_device,
    save_model_file,
)

__all__ = [
    "CHECKPOINT_NAME", "MODEL_NAME", "TrainArgs", "TrainResult", "Trainer", "TrainingDiverged", "free_cores",
    "idle_cores", "process_layout", "resolve_device", "resolve_resume_args", "train",
]


@dataclass
class TrainResult:
    """What :func:`train` returns."""

    out: Path
    batch: int
    games: int
    decisions: int
    elapsed_s: float
    finished: bool
    last_eval: dict[str, Any]
    model: Big2Net
    wall_s: float = 0.0
    eval_s: float = 0.0
    already_finished: bool = False
    stop_after: int = 0
    """The run's ``stop_after`` (0: none): the batch it stopped at when it did not finish."""


def resolve_resume_args(saved: Mapping[str, Any], given: TrainArgs, explicit: Collection[str] | None) -> TrainArgs:
    """The arguments of a resumed run: the checkpoint's, with the ``explicit`` fields of
    ``given`` applied; refuses (``ValueError``) a change of a field that defines the experiment.

    ``stop_after`` is kept like the budget: a run planned to stop at batch N still stops there when
    resumed, unless ``explicit`` names ``stop_after`` or is ``None`` (``0`` then runs on to ``batches``)."""
    saved = dict(saved)
    if "preset" not in saved:  # saved before presets: its fields left at None meant the defaults of then
        saved.update({k: v for k, v in (LEGACY_PPO if saved.get("algo") == "ppo" else {}).items() if saved.get(k) is None})
        saved.setdefault("env", "engine")
    base = args_from_mapping({"workers": 1, **saved})  # runs from before `workers` existed trained in one process
    names = [f.name for f in fields(TrainArgs)] if explicit is None else list(explicit)
    changed = {}
    for name in names:
        new, old = getattr(given, name), getattr(base, name)
        if new == old or name == "preset":  # a saved run keeps its hyperparameters, whatever the preset now
            continue
        if name in ALGO_DEFAULTS["ppo"] and given.algo == base.algo and (
            new is None or given.algo_default(name) == base.algo_default(name)
        ):
            continue  # None is the algorithm's default: only the value in effect counts
        if name == "env" and (new == "auto" or given.env_in_use() == base.env_in_use()):
            continue
        if name == "games_per_batch" and (new is None or given.games_in_batch() == base.games_in_batch()):
            continue
        if name not in RESUME_MUTABLE:
            raise ValueError(
                f"cannot resume with {name}={new!r}: the run was started with {name}={old!r} "
                "(only the budget, logging, evaluation and thread settings may change on --resume)"
            )
        changed[name] = new
    values = base.to_dict()
    values.update(changed)  # stop_after among them: the saved one holds unless given again (0: run to --batches)
    return TrainArgs(**values)


def train(args: TrainArgs, resume: bool = False, explicit: Collection[str] | None = None) -> TrainResult:
    """Run (or resume) a training run; see the module docstring for what it writes.

    Args:
        args: the run's arguments.
        resume: continue from ``args.out/checkpoint.pt`` (its arguments are used;
            the fields named in ``explicit``, or all of ``args`` when ``explicit`` is
            ``None``, must not change anything that defines the experiment; the saved
            ``stop_after`` holds unless ``explicit`` names it or is ``None``).
        explicit: the argument names the user set (``big2 train`` passes those given
            on the command line or in ``--config``).

    Interruptions: Ctrl-C (``KeyboardInterrupt``) or ``SIGTERM`` saves the state of the
    last finished batch before the exception propagates; a checkpoint is also written every
    ``checkpoint_every`` batches and every ``checkpoint_minutes`` minutes, so even a
    ``SIGKILL`` loses at most that much work. Resuming a finished run writes a missing
    ``model.pt`` and returns at once (``already_finished``).

    Raises:
        CheckpointError: nothing to resume, a foreign or damaged checkpoint, another model
            config, or another number of processes than the run was trained with.
        ValueError: a bad argument; :class:`TrainingDiverged` when the loss or weights
            become non-finite (the checkpoint on disk is then left as it was).
    """
    wall_start = time.perf_counter()
    out = Path(args.out)
    checkpoint_path = out / CHECKPOINT_NAME
    state = None
    if resume:
        if not checkpoint_path.is_file():
            raise CheckpointError(
                f"nothing to resume: no {CHECKPOINT_NAME} in {str(out)!r} (a run writes its first one after "
                f"{args.checkpoint_every} batches or {args.checkpoint_minutes:g} minutes, and when interrupted)"
            )
        state = read_file(checkpoint_path, kinds=(CHECKPOINT_KIND,))
        args = resolve_resume_args(state["args"], args, explicit)
        args.out = str(out)
        check_config(state, args.network_config(), checkpoint_path)
    elif checkpoint_path.exists():
        raise CheckpointError(
            f"{str(out)!r} already holds a training run ({CHECKPOINT_NAME}); resume it with --resume, "
            "or choose another --out folder"
        )
    args = args.validate().resolved()  # saved with every default made concrete
    out.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    if state is not None and state["batch"] >= args.batches:
        return _already_finished(args, out, state, wall_start)
    # the learner's threads: the free cores shared with the local workers (none on this machine with a Ray cluster)
    remote = args.backend == "ray" and args.ray_address is not None
    cores = args.threads if args.threads > 0 else idle_cores()  # read once: the trainer shares out the same cores
    _, threads = process_layout(1 if remote or args.env == "vector" else args.workers, cores)
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with _sigterm_as_interrupt():
            return _run(args, out, state, threads, cores, wall_start)
    finally:
        torch.set_num_threads(previous_threads)


def _already_finished(args: TrainArgs, out: Path, state: Mapping[str, Any], wall_start: float) -> TrainResult:
    """Resuming a run that has done its batches: make sure ``model.pt`` exists, train nothing."""
    model_path = out / MODEL_NAME
    if not model_path.is_file():
        save_model_file(out, state)
    model = Big2Net(NetworkConfig.from_dict(state["model_config"]))
    try:
        model.load_state_dict(state["model_state"])
    except (RuntimeError, KeyError, TypeError) as err:
        raise CheckpointError(f"{str(out / CHECKPOINT_NAME)!r}: the weights do not fit its model config: {err}") from None
    return TrainResult(
        out, int(state["batch"]), int(state["games"]), int(state["decisions"]), float(state["elapsed_s"]), True, {},
        model.eval(), wall_s=time.perf_counter() - wall_start, already_finished=True,
    )


class _sigterm_as_interrupt:
    """Within the block, ``SIGTERM`` (a cluster's pre-emption, ``kill PID``) raises ``KeyboardInterrupt``
    like Ctrl-C, so that the trainer saves its last finished batch; only in the main thread."""

    def __enter__(self) -> None:
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._raise)

    @staticmethod
    def _raise(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    def __exit__(self, *exc: Any) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


def _run(
    args: TrainArgs, out: Path, state: Mapping[str, Any] | None, threads: int, cores: int, wall_start: float
) -> TrainResult:
    saved = None if state is None else state.get("processes")  # absent in checkpoints written before it was recorded
    # Value learners collected in one process before they shared self-play games with helpers:
    # such a run continues exactly in one process, whatever --workers says.
    trainer = Trainer(args, cores, single_process=saved == 1 and args.algo in VALUE_ALGOS)
    if state is not None:
        if saved is not None and saved != trainer.process_count and args.env != "vector":
            raise CheckpointError(
                f"this run trained with {saved} process(es) per batch and would resume with {trainer.process_count} "
                f"(--workers {args.workers} on {free_cores()} free core(s)): the processes share each batch's games and "
                f"gradients, so the run would not continue exactly. Resume with --workers {saved}"
                + ("" if args.backend == "ray" else f" on a machine with at least {saved} free cores")
            )
    try:
        return _loop(trainer, args, out, state, threads, wall_start)
    finally:
        trainer.close()


def _loop(
    trainer: Trainer, args: TrainArgs, out: Path, state: Mapping[str, Any] | None, threads: int, wall_start: float
) -> TrainResult:
    if state is not None:
        trainer.load_state_dict(state)
    start_batch = trainer.batch
    (out / "args.json").write_text(json.dumps(portable(args.to_dict()), indent=2) + "\n")  # no machine paths
    keep = start_batch if state is not None else None
    metrics = CsvLog(out / METRICS_NAME, METRICS_FIELDS, keep)
    train_log = CsvLog(out / TRAIN_LOG_NAME, TRAIN_LOG_FIELDS, keep)
    writer = tensorboard_writer(out, args.tensorboard, purge_step=start_batch if state is not None else None)
    stop = min(args.batches, args.stop_after) if args.stop_after else args.batches
    per_bar = 1 if args.steps_per_batch else args.games_in_batch()  # a step-based batch ends no fixed number of games
    bar = Progress(args.batches * per_bar, start_batch * per_bar, args.progress, "batch" if args.steps_per_batch else "game")
    if start_batch == 0:
        bar.write(
            f"big2 train: {args.algo}, curriculum {trainer.curriculum.describe()}; "
            f"{count_parameters(trainer.model):,} parameters; "
            + (f"the compiled vector env ({args.games_in_batch()} games at once)" if args.env == "vector"
               else f"{trainer.process_count} process(es)")
            + f" x {threads} torch thread(s); "
            f"learner on {trainer.device}; out {out}"
        )
    elif start_batch >= stop:  # resumed at or past the --stop-after it keeps
        bar.write(
            f"batch {start_batch} is already at this run's --stop-after {args.stop_after}: nothing to train "
            f"(give a larger --stop-after, or --stop-after 0 to run to --batches {args.batches})"
        )
    last_eval: dict[str, Any] = {}
    eval_s = 0.0

    def run_eval() -> None:
        nonlocal last_eval, eval_s
        if not args.eval_opponents:
            return
        started = time.perf_counter()
        results = {}
        for opponent in args.eval_opponents:
            played = f"{args.eval_games} games" if opponent in EVAL_CLASSES else f"{duel_deals(args.eval_games)} deals x 4 seats"
            bar.phase(f"eval vs {eval_opponent_name(opponent)} ({played})")
            results.update(trainer.evaluate([opponent], args.eval_games, args.eval_seed, args.eval_deterministic))
        bar.phase("train")
        eval_s += time.perf_counter() - started
        summary = []
        for opponent, r in results.items():
            metrics.append(
                {
                    "batch": trainer.batch,
                    "games": trainer.games,
                    "decisions": trainer.decisions,
                    "elapsed_s": trainer.elapsed_s,
                    "opponent": opponent,
                    "eval_games": r.n_games,
                    "win_rate": r.win_rate,
                    "win_rate_lo": r.win_rate_ci[0],
                    "win_rate_hi": r.win_rate_ci[1],
                    "mean_score": r.mean_score,
                    "mean_score_lo": r.mean_score_ci[0],
                    "mean_score_hi": r.mean_score_ci[1],
                }
            )
            if writer is not None:
                writer.add_scalar(f"eval/{opponent}/win_rate", r.win_rate, trainer.batch)
                writer.add_scalar(f"eval/{opponent}/mean_score", r.mean_score, trainer.batch)
            summary.append(f"{opponent} {r.win_rate:.1%} ({r.mean_score:+.2f})")
        last_eval = {k: {"win_rate": r.win_rate, "mean_score": r.mean_score} for k, r in results.items()}
        bar.write(f"batch {trainer.batch}: " + ", ".join(summary))

    monitor = ClipMonitor()  # says when PPO's policy is not moving (the clip fraction is PPO's)
    saved_batch = start_batch
    last_save = time.monotonic()
    unsaved: dict[str, Any] | None = None  # the state after the last finished batch, until it is on disk
    try:
        if start_batch == 0:
            run_eval()
        while trainer.batch < stop:
            try:
                stats = trainer.train_batch()
            except TrainingDiverged as err:
                raise TrainingDiverged(
                    f"{err}; the checkpoint in {str(out)!r} is untouched"
                    + (f" (batch {saved_batch}: --resume continues from there)" if saved_batch else "")
                ) from None
            unsaved = trainer.snapshot()  # evaluation never changes the trainer's state: this is what a save writes
            row = {
                "batch": trainer.batch,
                "games": trainer.games,
                "decisions": trainer.decisions,
                "elapsed_s": trainer.elapsed_s,
                **stats,
            }
            train_log.append(row)
            if writer is not None:
                for key in TRAIN_LOG_FIELDS[4:]:
                    if key in stats:
                        writer.add_scalar(f"train/{key}", stats[key], trainer.batch)
            if "clip_fraction" in stats:
                warning = monitor.update(stats["clip_fraction"], trainer.lr)
                if warning:
                    bar.write(warning)
            shown = trainer.learner.progress(stats)
            if "wait_share" in stats:  # the share of the batch spent waiting on workers
                shown["wait"] = f"{stats['wait_share']:.0%}"
            bar.update(per_bar, {"dec/s": f"{stats['decisions_per_s']:.0f}"} | shown)
            final = trainer.batch == stop
            if (args.eval_every and trainer.batch % args.eval_every == 0) or (trainer.batch == args.batches):
                run_eval()
            by_time = args.checkpoint_minutes > 0 and time.monotonic() - last_save >= 60.0 * args.checkpoint_minutes
            keep = bool(args.keep_models_every) and trainer.batch % args.keep_models_every == 0
            if (args.checkpoint_every and trainer.batch % args.checkpoint_every == 0) or final or by_time or keep:
                if keep:  # the policy as of this batch, kept for weight averaging (`big2 average OUT/models/*.pt`)
                    (out / MODELS_DIR).mkdir(exist_ok=True)
                    save_model_file(out / MODELS_DIR, unsaved, f"model_{trainer.batch:07d}.pt")
                trainer.save(out, unsaved)
                saved_batch, last_save, unsaved = trainer.batch, time.monotonic(), None
    except KeyboardInterrupt:
        if unsaved is not None:
            trainer.save(out, unsaved)
            saved_batch = int(unsaved["batch"])
        bar.write(
            f"interrupted during batch {trainer.batch + 1}; "
            + (f"the checkpoint in {out} is at batch {saved_batch}: continue with --resume" if saved_batch
               else "no batch had finished, so nothing was saved")
        )
        raise
    finally:
        bar.close()
        if writer is not None:
            writer.close()
    finished = trainer.batch >= args.batches
    if finished:
        try:
            from .plot import plot_health, plot_run

            if last_eval:
                plot_run(out)
            plot_health(out)
        except ImportError:  # no matplotlib: `big2 plot DIR` says how to get it
            pass
    return TrainResult(
        out, trainer.batch, trainer.games, trainer.decisions, trainer.elapsed_s, finished, last_eval, trainer.model,
        wall_s=time.perf_counter() - wall_start, eval_s=eval_s, stop_after=args.stop_after,
    )
