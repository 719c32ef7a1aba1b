"""Hand-written PyTorch references of the ShapeScript example models.

`examples/shapescript/vit.ss`, `gpt2.ss`, `convnet.ss`, `llama.ss`, `unet.ss`
and `moe.ss` describe ViT-B/16, GPT-2 small, a CIFAR-10 conv net, a LLaMA
decoder with TinyLlama-1.1B's sizes, a U-Net with the original widths and a
top-2 sparse mixture of experts with Mixtral 8x7B's sizes. This module
builds the same models in plain PyTorch, written independently of
ShapeScript (standard modules, `scaled_dot_product_attention`, a
convolution for the patches, the router as Hugging Face writes it), so that the
modules `shapescript build` generates can be checked against them: same
parameter count, same outputs for the same weights.

Parameter names follow the ShapeScript fields, which follow timm, Hugging Face
and torch.nn. `shapescript_layout(...)` lists the parameters the `.ss` files
declare (name and shape, in ShapeScript's layout), and
`shapescript_to_reference(...)` turns a state dict in that layout into one
that `load_state_dict` of the reference accepts. Only the ViT needs more than
the identity: its patch embedding is a linear layer over flattened patches in
ShapeScript and a 16x16 stride-16 convolution here.

Every model takes a config, so the tests can train reduced variants; the
default configs are the published sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

# ----------------------------------------------------------------------- ViT


@dataclass(frozen=True)
class VitConfig:
    """Sizes of a Vision Transformer; the defaults are ViT-B/16 (vit.ss)."""

    image: int = 224
    patch: int = 16
    channels: int = 3
    dim: int = 768
    heads: int = 12
    mlp: int = 3072
    layers: int = 12
    classes: int = 1000
    eps: float = 1e-6

    @property
    def patches(self) -> int:
        assert self.image % self.patch == 0, "the patch size must divide the image"
        return (self.image // self.patch) ** 2


class VitAttention(nn.Module):
    def __init__(self, cfg: VitConfig):
        super().__init__()
        assert cfg.dim % cfg.heads == 0
        self.heads = cfg.heads
        self.qkv = nn.Linear(cfg.dim, 3 * cfg.dim)
        self.proj = nn.Linear(cfg.dim, cfg.dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        # timm's layout: the 3*D values are (q, k, v) x heads x head width.
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2])
        return self.proj(out.transpose(1, 2).reshape(b, n, d))


class VitMlp(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


class VitBlock(nn.Module):
    def __init__(self, cfg: VitConfig):
        super().__init__()
        self.norm1 = nn.LayerNorm(cfg.dim, eps=cfg.eps)
        self.attn = VitAttention(cfg)
        self.norm2 = nn.LayerNorm(cfg.dim, eps=cfg.eps)
        self.mlp = VitMlp(cfg.dim, cfg.mlp)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class PatchEmbed(nn.Module):
    """Patches to tokens by a convolution whose kernel and stride are the patch."""

    def __init__(self, cfg: VitConfig):
        super().__init__()
        self.proj = nn.Conv2d(cfg.channels, cfg.dim, kernel_size=cfg.patch, stride=cfg.patch)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        return self.proj(img).flatten(2).transpose(1, 2)


class VisionTransformer(nn.Module):
    """ViT with a class token, learned positions and pre-norm blocks."""

    def __init__(self, cfg: VitConfig = VitConfig()):
        super().__init__()
        self.cfg = cfg
        self.patch_embed = PatchEmbed(cfg)
        self.cls_token = nn.Parameter(torch.randn(1, 1, cfg.dim) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, cfg.patches + 1, cfg.dim) * 0.02)
        self.blocks = nn.ModuleList(VitBlock(cfg) for _ in range(cfg.layers))
        self.norm = nn.LayerNorm(cfg.dim, eps=cfg.eps)
        self.head = nn.Linear(cfg.dim, cfg.classes)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        tokens = self.patch_embed(img)
        cls = self.cls_token.expand(tokens.shape[0], -1, -1)
        x = torch.cat([cls, tokens], dim=1) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


# --------------------------------------------------------------------- GPT-2


@dataclass(frozen=True)
class Gpt2Config:
    """Sizes of a GPT-2; the defaults are GPT-2 small (gpt2.ss)."""

    vocab: int = 50257
    context: int = 1024
    dim: int = 768
    heads: int = 12
    layers: int = 12
    eps: float = 1e-5


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: Gpt2Config):
        super().__init__()
        assert cfg.dim % cfg.heads == 0
        self.heads = cfg.heads
        self.c_attn = nn.Linear(cfg.dim, 3 * cfg.dim)
        self.c_proj = nn.Linear(cfg.dim, cfg.dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = (t.view(b, n, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(out.transpose(1, 2).reshape(b, n, d))


class Gpt2Mlp(nn.Module):
    def __init__(self, cfg: Gpt2Config):
        super().__init__()
        self.c_fc = nn.Linear(cfg.dim, 4 * cfg.dim)
        self.c_proj = nn.Linear(4 * cfg.dim, cfg.dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # GPT-2 was trained with the tanh approximation of GELU.
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Gpt2Block(nn.Module):
    def __init__(self, cfg: Gpt2Config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.dim, eps=cfg.eps)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.dim, eps=cfg.eps)
        self.mlp = Gpt2Mlp(cfg)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt2(nn.Module):
    """GPT-2 with the output layer tied to the token embedding."""

    def __init__(self, cfg: Gpt2Config = Gpt2Config()):
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.vocab, cfg.dim)
        self.wpe = nn.Embedding(cfg.context, cfg.dim)
        self.h = nn.ModuleList(Gpt2Block(cfg) for _ in range(cfg.layers))
        self.ln_f = nn.LayerNorm(cfg.dim, eps=cfg.eps)
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        n = ids.shape[1]
        if n > self.cfg.context:
            raise ValueError(f"sequence of {n} tokens is longer than the context {self.cfg.context}")
        positions = torch.arange(n, device=ids.device)
        x = self.wte(ids) + self.wpe(positions)
        for block in self.h:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)

    def loss(self, ids: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean next-token cross-entropy; `targets` are the ids shifted by one."""
        logits = self(ids)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


# --------------------------------------------------------------------- LLaMA


@dataclass(frozen=True)
class LlamaConfig:
    """Sizes of a LLaMA decoder; the defaults are TinyLlama-1.1B (llama.ss)."""

    vocab: int = 32000
    context: int = 2048
    dim: int = 2048
    heads: int = 32
    kv_heads: int = 4
    layers: int = 22
    mlp: int = 5632
    eps: float = 1e-5
    theta: float = 10000.0


class LlamaRmsNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.heads, self.kv_heads = cfg.heads, cfg.kv_heads
        self.head_dim = cfg.dim // cfg.heads
        self.q_proj = nn.Linear(cfg.dim, cfg.heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(cfg.dim, cfg.kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(cfg.dim, cfg.kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(cfg.heads * self.head_dim, cfg.dim, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # Each key/value head serves heads // kv_heads query heads.
        group = self.heads // self.kv_heads
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(b, n, -1))


class LlamaMlp(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.dim, cfg.mlp, bias=False)
        self.up_proj = nn.Linear(cfg.dim, cfg.mlp, bias=False)
        self.down_proj = nn.Linear(cfg.mlp, cfg.dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaBlock(nn.Module):
    def __init__(self, cfg: LlamaConfig):
        super().__init__()
        self.input_layernorm = LlamaRmsNorm(cfg.dim, cfg.eps)
        self.self_attn = LlamaAttention(cfg)
        self.post_attention_layernorm = LlamaRmsNorm(cfg.dim, cfg.eps)
        self.mlp = LlamaMlp(cfg)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    """A LLaMA decoder, Hugging Face's LlamaForCausalLM without its `model.` prefix."""

    def __init__(self, cfg: LlamaConfig = LlamaConfig()):
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab, cfg.dim)
        self.layers = nn.ModuleList(LlamaBlock(cfg) for _ in range(cfg.layers))
        self.norm = LlamaRmsNorm(cfg.dim, cfg.eps)
        self.lm_head = nn.Linear(cfg.dim, cfg.vocab, bias=False)
        # Rotary tables for every position below the context, one column
        # per pair of a head's width (persistent, as llama.ss's buffers).
        head_dim = cfg.dim // cfg.heads
        inv_freq = 1.0 / cfg.theta ** (torch.arange(0, head_dim, 2).float() / head_dim)
        freqs = torch.outer(torch.arange(cfg.context).float(), inv_freq)
        self.register_buffer("cos", freqs.cos())
        self.register_buffer("sin", freqs.sin())

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        n = ids.shape[1]
        if n > self.cfg.context:
            raise ValueError(f"sequence of {n} tokens is longer than the context {self.cfg.context}")
        cos = torch.cat((self.cos[:n], self.cos[:n]), dim=-1)
        sin = torch.cat((self.sin[:n], self.sin[:n]), dim=-1)
        x = self.embed_tokens(ids)
        for block in self.layers:
            x = block(x, cos, sin)
        return self.lm_head(self.norm(x))


# ------------------------------------------------------------------- ConvNet


@dataclass(frozen=True)
class ConvNetConfig:
    """Sizes of the CIFAR-10 conv net (convnet.ss)."""

    image: int = 32
    channels: tuple[int, int, int] = (32, 64, 128)
    hidden: int = 256
    classes: int = 10

    @property
    def final_side(self) -> int:
        # Two 2x2 pools, then a 3x3 stride-2 padding-1 convolution, rounding down.
        side = self.image // 2 // 2
        return (side + 2 * 1 - 3) // 2 + 1


class ConvNet(nn.Module):
    """conv-relu-pool, conv-relu-pool, strided conv-relu, two linear layers."""

    def __init__(self, cfg: ConvNetConfig = ConvNetConfig()):
        super().__init__()
        self.cfg = cfg
        c1, c2, c3 = cfg.channels
        self.conv1 = nn.Conv2d(3, c1, 3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(c1, c2, 3, stride=1, padding=1)
        self.conv3 = nn.Conv2d(c2, c3, 3, stride=2, padding=1)
        self.fc1 = nn.Linear(c3 * cfg.final_side**2, cfg.hidden)
        self.fc2 = nn.Linear(cfg.hidden, cfg.classes)

    def features(self, img: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(img)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return F.relu(self.conv3(x))

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.relu(self.fc1(self.features(img).flatten(1))))

    def predict(self, img: torch.Tensor) -> torch.Tensor:
        """The most likely class of each image."""
        return self(img).argmax(dim=1)


# --------------------------------------------------------------------- U-Net


@dataclass(frozen=True)
class UNetConfig:
    """Sizes of a U-Net; the defaults are unet.ss's: the original U-Net's
    widths (64 to 1024 channels over four halvings), RGB in, 2 classes."""

    channels: int = 3
    classes: int = 2
    width: int = 64


class UNetConv(nn.Module):
    """Two 3x3 convolutions with padding 1, each followed by a relu."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.conv2(F.relu(self.conv1(x))))


class UNetDown(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = UNetConv(c_in, c_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(F.max_pool2d(x, 2))


class UNetUp(nn.Module):
    """Bilinear x2 upsampling, the skip connection concatenated after it."""

    def __init__(self, c_in: int, c_skip: int, c_out: int):
        super().__init__()
        self.conv = UNetConv(c_in + c_skip, c_out)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        up = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        return self.conv(torch.cat([up, skip], dim=1))


class UNet(nn.Module):
    """A U-Net with padded convolutions and bilinear upsampling."""

    def __init__(self, cfg: UNetConfig = UNetConfig()):
        super().__init__()
        self.cfg = cfg
        c1, c2, c3, c4, c5 = (cfg.width * 2**i for i in range(5))
        self.inc = UNetConv(cfg.channels, c1)
        self.down1 = UNetDown(c1, c2)
        self.down2 = UNetDown(c2, c3)
        self.down3 = UNetDown(c3, c4)
        self.down4 = UNetDown(c4, c5)
        self.up1 = UNetUp(c5, c4, c4)
        self.up2 = UNetUp(c4, c3, c3)
        self.up3 = UNetUp(c3, c2, c2)
        self.up4 = UNetUp(c2, c1, c1)
        self.outc = nn.Conv2d(c1, cfg.classes, 1)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        if img.shape[-1] % 16 or img.shape[-2] % 16:
            raise ValueError(f"the image's sides must be multiples of 16, not {tuple(img.shape[-2:])}")
        x1 = self.inc(img)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x5 = self.down4(x4)
        y = self.up1(x5, x4)
        y = self.up2(y, x3)
        y = self.up3(y, x2)
        y = self.up4(y, x1)
        return self.outc(y)


# ------------------------------------------------------- mixture of experts


@dataclass(frozen=True)
class MoeConfig:
    """Sizes of a sparse mixture-of-experts layer; the defaults are one
    layer of Mixtral 8x7B (moe.ss)."""

    dim: int = 4096
    hidden: int = 14336
    experts: int = 8
    top_k: int = 2


class MoeExpert(nn.Module):
    """A SwiGLU MLP, Mixtral's names: w2(silu(w1(x)) * w3(x))."""

    def __init__(self, cfg: MoeConfig):
        super().__init__()
        self.w1 = nn.Linear(cfg.dim, cfg.hidden, bias=False)
        self.w2 = nn.Linear(cfg.hidden, cfg.dim, bias=False)
        self.w3 = nn.Linear(cfg.dim, cfg.hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoe(nn.Module):
    """Hugging Face's MixtralSparseMoeBlock, written out: a softmax over
    every expert, the top k kept and rescaled to sum to 1, and each expert
    run on the tokens routed to it only."""

    def __init__(self, cfg: MoeConfig = MoeConfig()):
        super().__init__()
        self.cfg = cfg
        self.gate = nn.Linear(cfg.dim, cfg.experts, bias=False)
        self.experts = nn.ModuleList(MoeExpert(cfg) for _ in range(cfg.experts))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        tokens = x.reshape(-1, d)
        probs = F.softmax(self.gate(tokens), dim=-1)
        weights, chosen = torch.topk(probs, self.cfg.top_k, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(tokens)
        for e, expert in enumerate(self.experts):
            token, slot = torch.where(chosen == e)
            out.index_add_(0, token, expert(tokens[token]) * weights[token, slot, None])
        return out.reshape(b, n, d)


# ------------------------------------------- the ShapeScript parameter layout


def _linear(name: str, d_in: int, d_out: int) -> dict[str, tuple[int, ...]]:
    return {f"{name}.weight": (d_out, d_in), f"{name}.bias": (d_out,)}


def _norm(name: str, dim: int) -> dict[str, tuple[int, ...]]:
    return {f"{name}.weight": (dim,), f"{name}.bias": (dim,)}


def shapescript_layout(model: str, cfg=None) -> dict[str, tuple[int, ...]]:
    """The parameters (and buffers) the `.ss` file of `model` ("vit", "gpt2",
    "convnet", "llama", "unet", "moe") declares, as the state dict keys and shapes a generated module will have:
    fields by name, sub-models as `field.`, stacks `[L] Block` as `field.i.`."""
    if model == "vit":
        cfg = cfg or VitConfig()
        layout = _linear("patch_embed", cfg.channels * cfg.patch * cfg.patch, cfg.dim)
        layout["cls_token"] = (1, 1, cfg.dim)
        layout["pos_embed"] = (1, cfg.patches + 1, cfg.dim)
        for i in range(cfg.layers):
            b = f"blocks.{i}"
            layout |= _norm(f"{b}.norm1", cfg.dim)
            layout |= _linear(f"{b}.attn.qkv", cfg.dim, 3 * cfg.dim)
            layout |= _linear(f"{b}.attn.proj", cfg.dim, cfg.dim)
            layout |= _norm(f"{b}.norm2", cfg.dim)
            layout |= _linear(f"{b}.mlp.fc1", cfg.dim, cfg.mlp)
            layout |= _linear(f"{b}.mlp.fc2", cfg.mlp, cfg.dim)
        layout |= _norm("norm", cfg.dim)
        layout |= _linear("head", cfg.dim, cfg.classes)
        return layout
    if model == "gpt2":
        cfg = cfg or Gpt2Config()
        layout = {"wte.weight": (cfg.vocab, cfg.dim), "wpe.weight": (cfg.context, cfg.dim)}
        for i in range(cfg.layers):
            b = f"h.{i}"
            layout |= _norm(f"{b}.ln_1", cfg.dim)
            layout |= _linear(f"{b}.attn.c_attn", cfg.dim, 3 * cfg.dim)
            layout |= _linear(f"{b}.attn.c_proj", cfg.dim, cfg.dim)
            layout |= _norm(f"{b}.ln_2", cfg.dim)
            layout |= _linear(f"{b}.mlp.c_fc", cfg.dim, 4 * cfg.dim)
            layout |= _linear(f"{b}.mlp.c_proj", 4 * cfg.dim, cfg.dim)
        layout |= _norm("ln_f", cfg.dim)
        return layout
    if model == "convnet":
        cfg = cfg or ConvNetConfig()
        c1, c2, c3 = cfg.channels
        layout = {}
        for name, c_in, c_out in (("conv1", 3, c1), ("conv2", c1, c2), ("conv3", c2, c3)):
            layout |= {f"{name}.weight": (c_out, c_in, 3, 3), f"{name}.bias": (c_out,)}
        layout |= _linear("fc1", c3 * cfg.final_side**2, cfg.hidden)
        layout |= _linear("fc2", cfg.hidden, cfg.classes)
        return layout
    if model == "llama":
        cfg = cfg or LlamaConfig()
        head = cfg.dim // cfg.heads
        layout = {"embed_tokens.weight": (cfg.vocab, cfg.dim)}
        for i in range(cfg.layers):
            b = f"layers.{i}"
            layout[f"{b}.input_layernorm.weight"] = (cfg.dim,)
            layout[f"{b}.self_attn.q_proj.weight"] = (cfg.heads * head, cfg.dim)
            layout[f"{b}.self_attn.k_proj.weight"] = (cfg.kv_heads * head, cfg.dim)
            layout[f"{b}.self_attn.v_proj.weight"] = (cfg.kv_heads * head, cfg.dim)
            layout[f"{b}.self_attn.o_proj.weight"] = (cfg.dim, cfg.heads * head)
            layout[f"{b}.post_attention_layernorm.weight"] = (cfg.dim,)
            layout[f"{b}.mlp.gate_proj.weight"] = (cfg.mlp, cfg.dim)
            layout[f"{b}.mlp.up_proj.weight"] = (cfg.mlp, cfg.dim)
            layout[f"{b}.mlp.down_proj.weight"] = (cfg.dim, cfg.mlp)
        layout["norm.weight"] = (cfg.dim,)
        layout["lm_head.weight"] = (cfg.vocab, cfg.dim)
        # The rotary tables are buffers: in the state dict, not parameters.
        layout["cos"] = layout["sin"] = (cfg.context, head // 2)
        return layout
    if model == "unet":
        cfg = cfg or UNetConfig()
        c = [cfg.width * 2**i for i in range(5)]

        def double_conv(name: str, c_in: int, c_out: int) -> dict[str, tuple[int, ...]]:
            return {
                f"{name}.conv1.weight": (c_out, c_in, 3, 3),
                f"{name}.conv1.bias": (c_out,),
                f"{name}.conv2.weight": (c_out, c_out, 3, 3),
                f"{name}.conv2.bias": (c_out,),
            }

        layout = double_conv("inc", cfg.channels, c[0])
        for i in range(4):
            layout |= double_conv(f"down{i + 1}.conv", c[i], c[i + 1])
        for i in range(4):
            # up1 takes the bottom level (c[4]) and the skip of c[3].
            low, skip = c[4 - i], c[3 - i]
            layout |= double_conv(f"up{i + 1}.conv", low + skip, skip)
        layout |= {"outc.weight": (cfg.classes, c[0], 1, 1), "outc.bias": (cfg.classes,)}
        return layout
    if model == "moe":
        cfg = cfg or MoeConfig()
        layout = {"gate.weight": (cfg.experts, cfg.dim)}
        for e in range(cfg.experts):
            layout[f"experts.{e}.w1.weight"] = (cfg.hidden, cfg.dim)
            layout[f"experts.{e}.w2.weight"] = (cfg.dim, cfg.hidden)
            layout[f"experts.{e}.w3.weight"] = (cfg.hidden, cfg.dim)
        return layout
    raise ValueError(f"unknown model {model!r}")


def shapescript_to_reference(model: str, state: dict[str, torch.Tensor], cfg=None) -> dict[str, torch.Tensor]:
    """A state dict in ShapeScript's layout, renamed and reshaped for the reference."""
    if model != "vit":
        return dict(state)
    cfg = cfg or VitConfig()
    out = dict(state)
    # [D (c 16 16)] flattened patches -> the convolution's [D c 16 16]: the
    # pattern in vit.ss flattens each patch as (channel, row, column).
    weight = out.pop("patch_embed.weight")
    out["patch_embed.proj.weight"] = weight.reshape(cfg.dim, cfg.channels, cfg.patch, cfg.patch)
    out["patch_embed.proj.bias"] = out.pop("patch_embed.bias")
    return out


def parameter_count(module: nn.Module) -> int:
    """Distinct trainable parameters (a tied weight counts once)."""
    return sum(p.numel() for p in module.parameters())

