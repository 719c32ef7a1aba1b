"""One process of test_emitted_ecosystem.py's data-parallel tests: joins a
two-process gloo group on the CPU, wraps a generated module in
DistributedDataParallel or shards it with FSDP2's `fully_shard`, runs one
training step's forward and backward on its half of the batch and saves
the averaged gradients (whole tensors). A module of its own so `spawn`'s
children can import it.

A worker that succeeded leaves in step with the other (a barrier before
the group is destroyed) and then at once (`os._exit`), without the
interpreter's and the C++ libraries' teardown: on a loaded CI machine a
rank once aborted there ("terminate called without an active exception",
from a background thread of gloo or of the rendezvous store) after its
work was done, which is PyTorch's teardown, not the code under test."""

from __future__ import annotations

import importlib
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def next_token_loss(module: torch.nn.Module, ids: torch.Tensor) -> torch.Tensor:
    logits = module(ids[:, :-1])
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())


def run(rank: int, world: int, port: int, folder: str, module: str, top: str, state: str, batch: str, out: str, mode: str = "ddp"):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        sys.path.insert(0, folder)
        model = getattr(importlib.import_module(module), top)()
        model.load_state_dict(torch.load(state))
        ids = torch.load(batch).chunk(world)[rank]
        if mode == "ddp":
            # Held in a name: the wrapper's hooks average the gradients
            # during backward and go with it.
            ddp = DistributedDataParallel(model)
            next_token_loss(ddp, ids).backward()
            grads = {name: p.grad for name, p in model.named_parameters()}
        else:
            from torch.distributed.fsdp import fully_shard

            for block in model.layers:
                fully_shard(block)
            fully_shard(model)
            next_token_loss(model, ids).backward()
            grads = {name: p.grad.full_tensor() for name, p in model.named_parameters()}
        if rank == 0:
            torch.save(grads, out)
        dist.barrier()
    finally:
        dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
