"""PPO for Big 2 entirely in JAX: self-play in four seats, rollout and update in one compiled program.

One readable file in CleanRL's and PureJaxRL's style, on :mod:`big2_env.jax` (the rules in JAX)
and Charlesworth's recipe (``agents.config.CHARLESWORTH_PRESET``):

* **his network**: his 412 numbers -> 512 ReLU, then a policy branch (256 ReLU -> 1695 logits,
  masked to the legal actions) and a value branch (256 ReLU -> 1); orthogonal weights (gain
  sqrt 2, the logits 0.01, the value 1), zero biases;
* **his cadence**: 64 games stepped 20 decisions each per update (1,280 decisions), the games
  running on across updates; every decision learned, forced passes too;
* **his PPO**: 5 epochs of 4 minibatches of 320; Adam (epsilon 1e-5) at 2.5e-4 and the clip 0.2,
  both falling linearly over his 781,250 planned updates (the learning rate to a floor of 0.4%);
  entropy 0.01, gamma 0.995, lambda 0.95, rewards (the final scores) x 0.2, value coefficient 0.5
  with the clipped value loss, gradient norm clipped at 0.5, advantages normalised per minibatch.

Self-play in four seats: Big 2's turn passes seat by seat, so a seat's next decision is the one four
decisions later in its game. Each decision's advantage is GAE over its own seat's decisions (a lag
of four), and when a game ends each seat's last decision (the game's last four) gets that seat's
final score. The last four decisions of each update wait for the next one, where what follows them
is known (as his trainer does); the others bootstrap from the value four decisions on.

Every ``--eval-every`` updates the policy (sampling, as ``big2 eval`` plays PPO networks) plays
``--eval-games`` games against three Random players, in JAX, the learner's seat rotating. At the end
the policy is saved in the package's policy-file format (``DIR/model.pt``: the torch ``Big2Net``
with ``design="charlesworth"`` has the same layers), so ``big2 eval --agent DIR/model.pt --rules
charlesworth`` and the arena play it; the file's logits are checked against JAX's before it is kept.

Usage (the run docs/jax.md reports: one core of this CPU, about half an hour)::

    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" taskset -c 1 \\
        python examples/jax_ppo.py --updates 2000 --eval-every 200 --eval-games 512 --out runs/jax_ppo
    python examples/jax_ppo.py --updates 2 --eval-every 1 --eval-games 8 --out /tmp/jax_ppo_smoke   # a smoke run

On a GPU, his cadence to 20.48M decisions (about two minutes on an H200; ``--max-seconds`` stops it at a
chunk's end when time runs short, the log and the policy file being rewritten after every chunk)::

    python examples/jax_ppo.py --updates 16000 --eval-every 1000 --eval-games 4096 --out runs/jax_gpu/ppo_20m

After every chunk the run's whole state goes to ``DIR/checkpoint.npz`` (the parameters, Adam's moments and
step, every game's state, the held decisions, the keys, the update count, and as JSON the arguments and
the log): numpy arrays named by their paths in the state, read without unpickling, written to a temporary
file and renamed into place. ``--resume DIR`` continues from it exactly where a straight run would be; it
may change ``--updates``, ``--max-seconds``, ``--snapshot-every``, ``--eval-games`` and ``--out`` (by
default DIR), and refuses any other argument that differs from the checkpoint's. ``--snapshot-every D``
keeps ``DIR/snapshots/model_<decisions>.pt`` at the first chunk end past every multiple of D decisions
and at the end. The two long regimes (docs/jax.md, "Long runs on a GPU, in spells"), each stopped at a
chunk's end before 500 s and resumed in later spells::

    # (a) his recipe at his cadence to 3 times his budget (524.8M decisions)
    python examples/jax_ppo.py --updates 410000 --eval-every 2000 --eval-games 4096 --snapshot-every 30720000 \\
        --max-seconds 500 --out runs/jax_a
    # (b) Pgx's batch (524,288 decisions an update, minibatches of 4,096, 3 epochs, Adam at 3e-4) to 1B decisions
    python examples/jax_ppo.py --num-envs 8192 --num-steps 64 --minibatch 4096 --epochs 3 --lr 3e-4 --horizon 1908 \\
        --updates 1908 --eval-every 53 --eval-games 4096 --snapshot-every 166723584 --max-seconds 500 --out runs/jax_b
    # each later spell
    python examples/jax_ppo.py --resume runs/jax_a --max-seconds 500
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from agents.config import CHARLESWORTH_PRESET as HIS
from big2_env.records import portable
from big2_env.jax import Big2

LAG = 4  # a seat decides every fourth decision of its game


@dataclass
class Args:
    seed: int = 0
    updates: int = 600  # PPO updates of 1,280 decisions
    num_envs: int = HIS["games_per_batch"]  # 64
    num_steps: int = HIS["steps_per_batch"]  # 20
    lr: float = HIS["lr"]  # 2.5e-4
    horizon: int = HIS["batches"]  # 781,250: the learning rate and the clip fall linearly over these updates
    min_lr_fraction: float = HIS["min_lr_fraction"]
    clip: float = HIS["clip"]
    entropy: float = HIS["entropy"]
    gamma: float = HIS["gamma"]
    gae_lambda: float = HIS["gae_lambda"]
    reward_scale: float = HIS["reward_scale"]
    value_coef: float = HIS["value_coef"]
    max_grad_norm: float = HIS["max_grad_norm"]
    epochs: int = HIS["epochs"]
    minibatch: int = HIS["minibatch"]  # 320
    adam_eps: float = 1e-5  # his (torch's default is 1e-8)
    eval_every: int = 100
    eval_games: int = 512
    max_seconds: float = 0.0  # start no chunk (after the first) that would end past this many seconds, at the last one's pace
    snapshot_every: int = 0  # keep the policy file at the first chunk end past every multiple of these decisions (0: none)
    out: str = "runs/jax_ppo"


FREE = ("updates", "max_seconds", "snapshot_every", "eval_games", "out")
"""The arguments a resumed run may change: where it stops and what it writes. Every other one shapes the
state or the schedule (``eval_every`` is the length of the compiled chunk), and must be the checkpoint's."""
CHECKPOINT = "checkpoint.npz"


# ------------------------------------------------------------------ the network (his design)
def orthogonal(key: Any, shape: tuple[int, int], gain: float) -> Any:
    return jax.nn.initializers.orthogonal(gain)(key, shape, jnp.float32)


def init_params(key: Any) -> dict[str, Any]:
    k = jax.random.split(key, 5)
    root2 = float(np.sqrt(2.0))
    return {
        "trunk_w": orthogonal(k[0], (412, 512), root2), "trunk_b": jnp.zeros(512),
        "policy_w": orthogonal(k[1], (512, 256), root2), "policy_b": jnp.zeros(256),
        "logits_w": orthogonal(k[2], (256, 1695), 0.01), "logits_b": jnp.zeros(1695),
        "value_w": orthogonal(k[3], (512, 256), root2), "value_b": jnp.zeros(256),
        "out_w": orthogonal(k[4], (256, 1), 1.0), "out_b": jnp.zeros(1),
    }


def network(params: dict[str, Any], obs: Any, mask: Any) -> tuple[Any, Any]:
    """Masked log-probabilities (..., 1695) and values (...)."""
    h = jax.nn.relu(obs @ params["trunk_w"] + params["trunk_b"])
    logits = jax.nn.relu(h @ params["policy_w"] + params["policy_b"]) @ params["logits_w"] + params["logits_b"]
    value = jax.nn.relu(h @ params["value_w"] + params["value_b"]) @ params["out_w"] + params["out_b"]
    return jax.nn.log_softmax(jnp.where(mask, logits, -1e9), axis=-1), value[..., 0]


# ------------------------------------------------------------------ Adam, by hand (no optax needed)
class Adam(NamedTuple):
    step: Any
    mean: Any
    square: Any


def adam_init(params: dict[str, Any]) -> Adam:
    zeros = jax.tree.map(jnp.zeros_like, params)
    return Adam(jnp.int32(0), zeros, zeros)


def adam_update(params: Any, grads: Any, opt: Adam, lr: Any, eps: float) -> tuple[Any, Adam]:
    step = opt.step + 1
    mean = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, opt.mean, grads)
    square = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, opt.square, grads)
    scale = lr * jnp.sqrt(1 - 0.999 ** step) / (1 - 0.9 ** step)
    params = jax.tree.map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps), params, mean, square)
    return params, Adam(step, mean, square)


# ------------------------------------------------------------------ rollouts and PPO
class Steps(NamedTuple):
    """Decisions, time first: (T, num_envs, ...)."""

    obs: Any
    mask: Any
    action: Any
    logp: Any
    value: Any
    seat: Any
    reward: Any
    done: Any  # this seat's last decision of its game


class Runner(NamedTuple):
    params: Any
    opt: Adam
    state: Any  # the games, batched
    held: Steps  # the last LAG decisions of the previous update, learned in this one
    key: Any
    update: Any


def make(args: Args) -> tuple[Big2, Any, Any]:
    """The env, ``start(key) -> Runner`` and ``update(runner, _) -> (runner, metrics)`` (one PPO update, for ``lax.scan``)."""
    env = Big2("charlesworth", observation="charlesworth")
    n, t = args.num_envs, args.num_steps
    step = jax.vmap(env.step_autoreset)

    def rollout(params: Any, state: Any, key: Any, length: int) -> tuple[Any, Steps, Any, Any]:
        """``length`` decisions of every game; also which games ended at each and their scores."""
        def one(carry: tuple[Any, Any], _: Any) -> tuple[tuple[Any, Any], tuple[Any, ...]]:
            state, key = carry
            key, pick, deal = jax.random.split(key, 3)
            logp_all, value = network(params, state.observation, state.legal_action_mask)
            action = jax.random.categorical(pick, logp_all)
            logp = jnp.take_along_axis(logp_all, action[:, None], axis=1)[:, 0]
            after = step(state, action, jax.random.split(deal, n))
            record = (state.observation, state.legal_action_mask, action, logp, value, state.current_player,
                      after.terminated, after.rewards)
            return (after, key), record

        (state, _), (obs, mask, action, logp, value, seat, ended, scores) = jax.lax.scan(one, (state, key), None, length)
        zeros = jnp.zeros((length, n), jnp.float32)
        return state, Steps(obs, mask, action, logp, value, seat, zeros, zeros.astype(bool)), ended, scores

    def credit(steps: Steps, ended: Any, scores: Any) -> tuple[Steps, Any]:
        """Give each seat's last decision its final score: a game that ended at decision i ended each
        seat's trajectory at decisions i - 3 .. i (``steps`` holds the LAG held decisions first). Also
        returns each ended game's credited scores summed (zero: the four decisions are the four seats')."""
        reward, done = steps.reward, steps.done
        total = jnp.zeros((t, n))
        for back in range(LAG):
            at = jnp.arange(LAG, LAG + t) - back
            score = jnp.where(ended, jnp.take_along_axis(scores, steps.seat[at][..., None], axis=-1)[..., 0], 0.0)
            reward = reward.at[at].add(score * args.reward_scale)
            done = done.at[at].set(done[at] | ended)
            total = total + score
        return steps._replace(reward=reward, done=done), total

    def advantages(steps: Steps) -> tuple[Any, Any]:
        """GAE over each seat's own decisions (a lag of LAG) for the first ``t`` decisions of ``steps``."""
        def back(later: Any, i: Any) -> tuple[Any, Any]:
            keep = 1.0 - steps.done[i]
            delta = steps.reward[i] + args.gamma * keep * steps.value[i + LAG] - steps.value[i]
            advantage = delta + args.gamma * args.gae_lambda * keep * later[LAG - 1]
            return jnp.concatenate([advantage[None], later[:-1]]), advantage

        _, adv = jax.lax.scan(back, jnp.zeros((LAG, n)), jnp.arange(t - 1, -1, -1))
        adv = adv[::-1]
        return adv, adv + steps.value[:t]

    def loss(params: Any, batch: tuple[Any, ...], clip: Any) -> tuple[Any, dict[str, Any]]:
        obs, mask, action, old_logp, old_value, adv, ret = batch
        logp_all, value = network(params, obs, mask)
        logp = jnp.take_along_axis(logp_all, action[:, None], axis=1)[:, 0]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)  # his: per minibatch
        ratio = jnp.exp(logp - old_logp)
        policy_loss = jnp.maximum(-adv * ratio, -adv * jnp.clip(ratio, 1 - clip, 1 + clip)).mean()
        clipped = old_value + jnp.clip(value - old_value, -clip, clip)
        value_loss = 0.5 * jnp.maximum((value - ret) ** 2, (clipped - ret) ** 2).mean()
        entropy = -(jnp.where(mask, jnp.exp(logp_all) * logp_all, 0.0)).sum(-1).mean()
        total = policy_loss + args.value_coef * value_loss - args.entropy * entropy
        return total, {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy,
                       "approx_kl": ((ratio - 1) - (logp - old_logp)).mean(),
                       "clip_fraction": (jnp.abs(ratio - 1) > clip).mean()}

    def update(runner: Runner, _: Any) -> tuple[Runner, dict[str, Any]]:
        params, opt, state, held, key, count = runner
        key, play, shuffle = jax.random.split(key, 3)
        state, new, ended, scores = rollout(params, state, play, t)
        steps, credited = credit(jax.tree.map(lambda a, b: jnp.concatenate([a, b]), held, new), ended, scores)
        adv, ret = advantages(steps)
        learned = jax.tree.map(lambda a: a[:t].reshape((t * n,) + a.shape[2:]), steps)
        data = (learned.obs, learned.mask, learned.action, learned.logp, learned.value, adv.reshape(-1), ret.reshape(-1))
        progress = jnp.minimum(count / args.horizon, 1.0)
        lr = args.lr * jnp.maximum(1.0 - progress, args.min_lr_fraction)
        clip = args.clip * (1.0 - progress)

        def epoch(carry: tuple[Any, Adam, Any], _: Any) -> tuple[tuple[Any, Adam, Any], dict[str, Any]]:
            params, opt, key = carry
            key, perm = jax.random.split(key)
            order = jax.random.permutation(perm, t * n).reshape(-1, args.minibatch)

            def minibatch(carry: tuple[Any, Adam], index: Any) -> tuple[tuple[Any, Adam], dict[str, Any]]:
                params, opt = carry
                grads, info = jax.grad(loss, has_aux=True)(params, tuple(d[index] for d in data), clip)
                norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
                grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, args.max_grad_norm / (norm + 1e-6)), grads)
                params, opt = adam_update(params, grads, opt, lr, args.adam_eps)
                return (params, opt), {**info, "grad_norm": norm}

            (params, opt), info = jax.lax.scan(minibatch, (params, opt), order)
            return (params, opt, key), info

        (params, opt, _), info = jax.lax.scan(epoch, (params, opt, shuffle), None, args.epochs)
        returns = ret.reshape(-1)
        metrics = {k: v.mean() for k, v in info.items()}
        metrics["explained_variance"] = 1.0 - jnp.var(returns - learned.value) / (jnp.var(returns) + 1e-8)
        metrics["games_ended"] = ended.sum()
        # checks of the credit: four last decisions per ended game, the four seats' (their scores sum to zero)
        metrics["last_decisions"] = steps.done.sum() - held.done.sum()
        metrics["credited_sum"] = jnp.abs(credited).sum()
        metrics["lr"] = lr
        held = jax.tree.map(lambda a: a[t:], steps)
        return Runner(params, opt, state, held, key, count + 1), metrics

    def start(key: Any) -> Runner:
        k_params, k_deal, k_first, key = jax.random.split(key, 4)
        params = init_params(k_params)
        state = jax.vmap(env.init)(jax.random.split(k_deal, n))
        # the first LAG decisions are played before the first update (no game ends that soon), so that
        # every update learns t decisions: the LAG held back from before and t - LAG of its own
        state, first, _, _ = jax.jit(rollout, static_argnums=3)(params, state, k_first, LAG)
        return Runner(params, adam_init(params), state, first, key, jnp.int32(0))

    return env, start, update


def train_chunk(update: Any, updates: int) -> Any:
    @jax.jit
    def run(runner: Runner) -> tuple[Runner, dict[str, Any]]:
        return jax.lax.scan(update, runner, None, updates)
    return run


def evaluate_vs_random(env: Big2, games: int) -> Any:
    """The policy (sampling) in one seat (rotating over the games) against three Random players: win rate, mean score."""
    @jax.jit
    def run(params: Any, key: Any) -> tuple[Any, Any]:
        key, deal = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(deal, games))
        learner = jnp.arange(games, dtype=jnp.int32) % 4

        def going(carry: tuple[Any, Any]) -> Any:
            return ~carry[0].terminated.all()

        def one(carry: tuple[Any, Any]) -> tuple[Any, Any]:
            state, key = carry
            key, pick, other = jax.random.split(key, 3)
            logp, _ = network(params, state.observation, state.legal_action_mask)
            ours = jax.random.categorical(pick, logp)
            theirs = jax.random.categorical(other, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
            action = jnp.where(state.current_player == learner, ours, theirs)
            return jax.vmap(env.step)(state, action), key

        state, _ = jax.lax.while_loop(going, one, (state, key))
        scores = jax.vmap(env.scores)(state)
        won = jax.vmap(env.winner)(state) == learner
        return won.mean(), jnp.take_along_axis(scores, learner[:, None], axis=1).mean()
    return run


# ------------------------------------------------------------------ the policy file
def save_policy(params: Any, path: Path, info: dict[str, Any]) -> None:
    """Write ``params`` as the package's policy file (torch ``Big2Net``, design and view ``charlesworth``)
    and check that the file's network gives the same logits and values as JAX's."""
    import torch

    from agents.checkpoint import atomic_save, load_model, weights_payload
    from agents.config import NetworkConfig

    def tensor(name: str, transpose: bool = False) -> Any:
        value = np.asarray(params[name], dtype=np.float32)
        return torch.from_numpy((value.T if transpose else value).copy())

    weights = {
        "trunk.0.weight": tensor("trunk_w", True), "trunk.0.bias": tensor("trunk_b"),
        "policy_branch.0.weight": tensor("policy_w", True), "policy_branch.0.bias": tensor("policy_b"),
        "action_head.weight": tensor("logits_w", True), "action_head.bias": tensor("logits_b"),
        "value.0.weight": tensor("value_w", True), "value.0.bias": tensor("value_b"),
        "value.2.weight": tensor("out_w", True), "value.2.bias": tensor("out_b"),
    }
    config = NetworkConfig(design="charlesworth", observation="charlesworth")
    atomic_save(weights_payload(config.to_dict(), weights, info), path)
    model, _ = load_model(path, expected=config)
    env = Big2("charlesworth", observation="charlesworth")
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(123), 8))
    obs = np.array(state.observation)
    with torch.no_grad():
        hidden = model.trunk(torch.from_numpy(obs))
        logits = model.action_head(model.policy_branch(hidden)).numpy()
        value = model.state_value(hidden).numpy()
    # JAX's network at full float32 precision (on a GPU its default matrix products use TF32)
    with jax.default_matmul_precision("highest"):
        h = jax.nn.relu(obs @ params["trunk_w"] + params["trunk_b"])
        ours = np.asarray(jax.nn.relu(h @ params["policy_w"] + params["policy_b"]) @ params["logits_w"] + params["logits_b"])
        _, our_value = network(params, obs, np.ones((8, 1695), bool))
    if not (np.allclose(logits, ours, atol=1e-4) and np.allclose(value, np.asarray(our_value), atol=1e-4)):
        raise AssertionError(f"{path}: the saved network does not give JAX's logits and values")


# ------------------------------------------------------------------ the checkpoint
def flatten(tree: Any, prefix: str) -> dict[str, np.ndarray]:
    """The leaves of ``tree`` as numpy arrays, named by their paths (``runner.params['trunk_w']``)."""
    leaves, _ = jax.tree_util.tree_flatten_with_path(tree)
    return {prefix + jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in leaves}


def unflatten(template: Any, prefix: str, arrays: dict[str, np.ndarray]) -> Any:
    """``template``'s tree (arrays or shapes) with its leaves read from ``arrays``, each checked for shape and type."""
    leaves, treedef = jax.tree_util.tree_flatten_with_path(template)
    values = []
    for path, leaf in leaves:
        name = prefix + jax.tree_util.keystr(path)
        if name not in arrays:
            raise ValueError(f"the checkpoint has no {name}")
        value = arrays[name]
        if value.shape != tuple(leaf.shape) or value.dtype != leaf.dtype:
            raise ValueError(f"the checkpoint's {name} is {value.dtype}{list(value.shape)}; "
                             f"this run's is {leaf.dtype}{list(leaf.shape)}")
        values.append(jnp.asarray(value))
    return jax.tree_util.tree_unflatten(treedef, values)


def save_checkpoint(folder: Path, runner: Runner, eval_key: Any, meta: dict[str, Any]) -> Path:
    """The run's whole state in one file, ``folder/checkpoint.npz``: every array of the runner (the parameters,
    Adam's moments and step, the games, the held decisions, the key, the update count) and the evaluation key,
    named by their paths, and ``meta`` (the arguments, the counts, the log) as JSON text under ``meta.json``.
    Written to a temporary file and renamed over the last one, so a kill mid-write keeps the last one whole."""
    arrays = {**flatten(runner, "runner"), "eval_key": np.asarray(eval_key), "meta.json": np.array(json.dumps(meta))}
    path, temporary = folder / CHECKPOINT, folder / (CHECKPOINT + ".tmp")
    with open(temporary, "wb") as file:
        np.savez_compressed(file, **arrays)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    return path


def load_checkpoint(folder: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``folder/checkpoint.npz``'s meta and arrays (read without unpickling)."""
    path = folder / CHECKPOINT
    if not path.is_file():
        raise FileNotFoundError(f"--resume {folder}: no {CHECKPOINT} there")
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    return json.loads(str(arrays.pop("meta.json"))), arrays


# ------------------------------------------------------------------ the loop
def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, value in asdict(Args()).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    parser.add_argument("--resume", metavar="DIR", default="",
                        help=f"continue the run whose {CHECKPOINT} is in DIR (its arguments are the defaults; "
                             f"only --{', --'.join(n.replace('_', '-') for n in FREE)} may differ; --out defaults to DIR)")
    meta: dict[str, Any] = {}
    arrays: dict[str, np.ndarray] = {}
    resume = parser.parse_known_args(argv)[0].resume
    if resume:
        try:
            meta, arrays = load_checkpoint(Path(resume))
        except FileNotFoundError as error:
            parser.error(str(error))
        parser.set_defaults(**{**meta["args"], "out": resume})
    given = vars(parser.parse_args(argv))
    del given["resume"]
    args = Args(**given)
    if resume:
        differ = [f"--{name.replace('_', '-')} {value!r} (the checkpoint's: {meta['args'][name]!r})"
                  for name, value in asdict(args).items() if name not in FREE and value != meta["args"][name]]
        if differ:
            parser.error(f"--resume {resume}: these arguments shape the state or the schedule and must be the "
                         f"checkpoint's: {', '.join(differ)}")
    if args.num_envs * args.num_steps % args.minibatch:
        parser.error("--num-envs x --num-steps must be a multiple of --minibatch")
    if args.num_steps < LAG:
        parser.error(f"--num-steps must be at least {LAG}")
    if args.max_seconds < 0:
        parser.error(f"--max-seconds must be 0 (no limit) or more; got {args.max_seconds}")
    if args.snapshot_every < 0:
        parser.error(f"--snapshot-every must be 0 (none) or more; got {args.snapshot_every}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env, start, update = make(args)
    evaluate = evaluate_vs_random(env, args.eval_games)
    chunk = meta["chunk"] if resume else min(args.eval_every, args.updates)  # updates a compiled chunk runs
    run = train_chunk(update, chunk)
    decisions_per_update = args.num_envs * args.num_steps
    if resume:  # the state as the checkpoint has it, bit for bit
        template = jax.eval_shape(start, jax.random.PRNGKey(args.seed))
        runner = unflatten(template, "runner", arrays)
        eval_key = jnp.asarray(arrays["eval_key"])
        done = int(runner.update)
        log: list[dict[str, Any]] = meta["log"]
        print(f"resumed {resume} at update {done} ({done * decisions_per_update:,d} decisions) toward {args.updates}",
              flush=True)
    else:
        runner = start(jax.random.PRNGKey(args.seed))
        eval_key = jax.random.PRNGKey(args.seed + 10_000)
        done = 0
        win, score = evaluate(runner.params, eval_key)
        log = [{"update": 0, "decisions": 0, "win_rate_vs_random": float(win), "mean_score_vs_random": float(score)}]
        print(f"update      0: vs 3 x Random win rate {float(win):.1%}, mean score {float(score):+.2f}", flush=True)
    spells = meta.get("spells", []) + [done]  # the update each spell (the first run and each resume) started at
    train_s = meta.get("timed_s", 0.0)  # training seconds, each spell's first chunk left out (it includes compiling)
    timed = meta.get("timed_decisions", 0)
    wall_before = meta.get("wall_s", 0.0)
    first = done
    started = time.perf_counter()
    summary: dict[str, Any] = {}
    last_s = 0.0  # the last chunk's seconds, training, evaluation and writing

    def out_of_time() -> bool:  # never before the spell's first chunk; 0 is no limit
        return bool(done > first and args.max_seconds and time.perf_counter() - started + last_s > args.max_seconds)

    while done < args.updates and not out_of_time():
        t0 = time.perf_counter()
        runner, metrics = run(runner)
        jax.block_until_ready(runner.params)
        elapsed = time.perf_counter() - t0
        if done > first:  # the spell's first chunk's time includes compiling it
            train_s += elapsed
            timed += chunk * decisions_per_update
        done += chunk
        means = {k: float(np.mean(v)) for k, v in metrics.items()}
        win, score = evaluate(runner.params, eval_key)
        row = {"update": done, "decisions": done * decisions_per_update, **means, "chunk_s": elapsed,
               "win_rate_vs_random": float(win), "mean_score_vs_random": float(score)}
        log.append(row)
        rate = decisions_per_update * chunk / elapsed
        print(f"update {done:6d} ({done * decisions_per_update:>10,d} decisions, {rate:6,.0f}/s): "
              f"loss pi {means['policy_loss']:+.4f} v {means['value_loss']:.3f} entropy {means['entropy']:.3f} "
              f"kl {means['approx_kl']:.4f} clip {means['clip_fraction']:.3f} ev {means['explained_variance']:.3f} | "
              f"vs 3 x Random win rate {float(win):.1%}, mean score {float(score):+.2f}", flush=True)
        # the checkpoint, the log and the policy are rewritten after every chunk: a run stopped from outside
        # keeps its last chunk, and --resume continues from it
        summary = {
            "args": asdict(args),
            "device": str(jax.devices()[0]),
            "decisions": done * decisions_per_update,
            "games": int(sum(row.get("games_ended", 0.0) * chunk for row in log[1:])),
            "decisions_per_s": timed / train_s if train_s else None,
            "train_s": sum(r["chunk_s"] for r in log[1:]),  # every chunk's training, the compiling included
            "wall_s": wall_before + time.perf_counter() - started,
            "stopped_by_max_seconds": done < args.updates,
            "spells": spells,
            "log": log,
        }
        save_checkpoint(out, runner, eval_key, {**summary, "update": done, "chunk": chunk, "timed_s": train_s,
                                                "timed_decisions": timed})
        (out / "log.json").write_text(json.dumps(portable(summary), indent=1) + "\n")
        info = {"algo": "ppo", "rules": "charlesworth", "batch": done, "games": summary["games"], "seed": args.seed,
                "decisions": summary["decisions"], "trainer": "examples/jax_ppo.py"}
        save_policy(runner.params, out / "model.pt", info)
        reached, every = done * decisions_per_update, args.snapshot_every
        if every and (reached // every > (reached - chunk * decisions_per_update) // every or done >= args.updates):
            (out / "snapshots").mkdir(exist_ok=True)
            save_policy(runner.params, out / "snapshots" / f"model_{reached}.pt", info)
        last_s = time.perf_counter() - t0
    print(f"saved {out / 'model.pt'} (big2 eval --agent {out / 'model.pt'} --rules charlesworth --opponent random)")
    return summary


if __name__ == "__main__":
    main()
