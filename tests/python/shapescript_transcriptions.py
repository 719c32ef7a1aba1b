"""The example models' ShapeScript code, transcribed line by line into torch.

Until `shapescript build` exists, these functions stand in for the modules it
will generate from examples/shapescript/*.ss: each follows its `.ss` source
statement by statement (patterns become reshape/permute, `over=` becomes a
dim, `where`/`tril` stay `where`/`tril`), takes the parameters as a state dict
in ShapeScript's layout (reference_models.shapescript_layout), and must agree
with the independent references in reference_models.py. That checks the
algorithm written in the `.ss` files (patch order, head split order, mask,
tied head, loss) before there is a compiler; once there is one, the same
comparison runs on the generated modules instead.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from reference_models import ConvNetConfig, Gpt2Config, VitConfig

Params = dict[str, torch.Tensor]


def _linear(p: Params, name: str, x: torch.Tensor) -> torch.Tensor:
    return F.linear(x, p[f"{name}.weight"], p[f"{name}.bias"])


def _layer_norm(p: Params, name: str, x: torch.Tensor, eps: float) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), p[f"{name}.weight"], p[f"{name}.bias"], eps)


# ------------------------------------------------------------------- vit.ss


def vit_attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """fn attend(q: [b h i d], k: [b h j d], v: [b h j d]) -> [b h i d]"""
    d = q.shape[-1]
    scores = torch.einsum("bhid,bhjd->bhij", q, k) * d**-0.5
    weights = torch.softmax(scores, dim=3)  # over=j
    return torch.einsum("bhij,bhjd->bhid", weights, v)


def vit_forward(p: Params, img: torch.Tensor, cfg: VitConfig = VitConfig()) -> torch.Tensor:
    """VisionTransformer.forward(self, img: [b 3 Image Image]) -> [b Classes]"""
    heads, dh, patch = cfg.heads, cfg.dim // cfg.heads, cfg.patch
    b, c, height, width = img.shape
    gh, gw = height // patch, width // patch
    # rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])
    patches = img.reshape(b, c, gh, patch, gw, patch).permute(0, 2, 4, 1, 3, 5).reshape(b, gh * gw, c * patch * patch)
    # repeat(self.cls_token, [1 t d] -> [b t d], b=b)
    cls = p["cls_token"].reshape(1, cfg.dim).expand(b, 1, cfg.dim)
    # prepend(cls, self.patch_embed(patches)) + self.pos_embed
    x = torch.cat([cls, _linear(p, "patch_embed", patches)], dim=1) + p["pos_embed"]
    for i in range(cfg.layers):
        blk = f"blocks.{i}"
        y_in = _layer_norm(p, f"{blk}.norm1", x, cfg.eps)
        n = y_in.shape[1]
        # rearrange(self.qkv(x), [b n (3 H Dh)] -> [3 b H n Dh])
        qkv = _linear(p, f"{blk}.attn.qkv", y_in).reshape(b, n, 3, heads, dh).permute(2, 0, 3, 1, 4)
        out = vit_attend(qkv[0], qkv[1], qkv[2])
        # rearrange(out, [b h n d] -> [b n (h d)])
        merged = out.permute(0, 2, 1, 3).reshape(b, n, heads * dh)
        y = x + _linear(p, f"{blk}.attn.proj", merged)
        hidden = F.gelu(_linear(p, f"{blk}.mlp.fc1", _layer_norm(p, f"{blk}.norm2", y, cfg.eps)))
        x = y + _linear(p, f"{blk}.mlp.fc2", hidden)
    summary = _layer_norm(p, "norm", x, cfg.eps)[:, 0]
    return _linear(p, "head", summary)


# ------------------------------------------------------------------ gpt2.ss


def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    """fn gelu_tanh(x: Real) -> Real"""
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


def causal_attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """fn causal_attend(q: [b h i d], k: [b h j d], v: [b h j d]) -> [b h i d]"""
    d, i, j = q.shape[-1], q.shape[2], k.shape[2]
    scores = torch.einsum("bhid,bhjd->bhij", q, k) * d**-0.5
    visible = torch.tril(torch.ones(i, j)) > 0
    weights = torch.softmax(torch.where(visible, scores, -1e9), dim=3)  # over=j
    return torch.einsum("bhij,bhjd->bhid", weights, v)


def gpt2_forward(p: Params, ids: torch.Tensor, cfg: Gpt2Config = Gpt2Config()) -> torch.Tensor:
    """Gpt2.forward(self, ids: [b n] Index[V]) -> [b n V]"""
    heads, dh = cfg.heads, cfg.dim // cfg.heads
    b, n = ids.shape
    # arange(n) as [n] Index[Ctx]: the generated code checks the claim.
    if n > cfg.context:
        raise ValueError(f"ShapeError: gpt2.ss: arange(n) as [n] Index[Ctx]: {n} positions, context {cfg.context}")
    positions = torch.arange(n)
    x = F.embedding(ids, p["wte.weight"]) + F.embedding(positions, p["wpe.weight"])
    for i in range(cfg.layers):
        blk = f"h.{i}"
        y_in = _layer_norm(p, f"{blk}.ln_1", x, cfg.eps)
        qkv = _linear(p, f"{blk}.attn.c_attn", y_in).reshape(b, n, 3, heads, dh).permute(2, 0, 3, 1, 4)
        out = causal_attend(qkv[0], qkv[1], qkv[2])
        y = x + _linear(p, f"{blk}.attn.c_proj", out.permute(0, 2, 1, 3).reshape(b, n, heads * dh))
        hidden = gelu_tanh(_linear(p, f"{blk}.mlp.c_fc", _layer_norm(p, f"{blk}.ln_2", y, cfg.eps)))
        x = y + _linear(p, f"{blk}.mlp.c_proj", hidden)
    return F.linear(_layer_norm(p, "ln_f", x, cfg.eps), p["wte.weight"])


def gpt2_loss(p: Params, ids: torch.Tensor, targets: torch.Tensor, cfg: Gpt2Config = Gpt2Config()) -> torch.Tensor:
    """Gpt2.loss(self, ids: [b n] Index[V], targets: [b n] Index[V]) -> []"""
    log_probs = torch.log_softmax(gpt2_forward(p, ids, cfg), dim=2)  # over=V
    picked = (F.one_hot(targets, cfg.vocab) * log_probs).sum(dim=2)  # over=V
    return -picked.mean(dim=(0, 1))  # over=(b n)


# --------------------------------------------------------------- convnet.ss


def convnet_forward(p: Params, img: torch.Tensor, cfg: ConvNetConfig = ConvNetConfig()) -> torch.Tensor:
    """ConvNet.forward(self, img: [b 3 Image Image]) -> [b Classes]"""
    c1 = torch.relu(F.conv2d(img, p["conv1.weight"], p["conv1.bias"], stride=1, padding=1))
    p1 = F.max_pool2d(c1, 2)
    c2 = torch.relu(F.conv2d(p1, p["conv2.weight"], p["conv2.bias"], stride=1, padding=1))
    p2 = F.max_pool2d(c2, 2)
    c3 = torch.relu(F.conv2d(p2, p["conv3.weight"], p["conv3.bias"], stride=2, padding=1))
    b, c, h, w = c3.shape
    flat = c3.reshape(b, c * h * w)  # rearrange(c3, [b c h w] -> [b (c h w)])
    return _linear(p, "fc2", torch.relu(_linear(p, "fc1", flat)))


def convnet_predict(p: Params, img: torch.Tensor, cfg: ConvNetConfig = ConvNetConfig()) -> torch.Tensor:
    """ConvNet.predict(self, img: [b 3 Image Image]) -> [b] Index[Classes]"""
    return convnet_forward(p, img, cfg).argmax(dim=1)  # over=Classes
