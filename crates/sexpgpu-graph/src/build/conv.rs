//! `conv` and `conv-transpose` (`docs/sexpgpu/operations.md`): 1-, 2- and
//! 3-d by the weight's rank, channels first as PyTorch. `conv` is im2col
//! (zero padding, sliding windows through `index`) and one GEMM (`matmul`,
//! batched over groups); `conv-transpose` is the input's gradient of a conv:
//! the input spread out by the stride, padded, and convolved with the
//! flipped weight. Compositions, so gradients and backends come free.

use crate::build::window::PerAxis;
use crate::dtype::Scalar;
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::shape::Shape;

/// `conv`'s padding: sizes per axis, or `:same` (an output as long as the
/// input, for stride 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvPadding {
    Sizes(PerAxis),
    Same,
}

/// The keywords of `conv` and `conv-transpose`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvOptions {
    pub stride: PerAxis,
    pub padding: ConvPadding,
    pub dilation: PerAxis,
    pub groups: i64,
    /// `conv-transpose` only: extra elements at the end of each axis.
    pub output_padding: PerAxis,
}

impl Default for ConvOptions {
    fn default() -> ConvOptions {
        ConvOptions {
            stride: PerAxis::All(1),
            padding: ConvPadding::Sizes(PerAxis::All(0)),
            dilation: PerAxis::All(1),
            groups: 1,
            output_padding: PerAxis::All(0),
        }
    }
}

/// The checked sizes of one convolution.
struct Geometry {
    /// Spatial axes.
    d: usize,
    /// The input had no batch axis.
    unbatched: bool,
    groups: usize,
    kernel: Vec<usize>,
    stride: Vec<usize>,
    dilation: Vec<usize>,
}

impl Graph {
    /// `(conv x w ...)`: `x` is `[n c s..]` (or `[c s..]`), `w` is
    /// `[out c/groups k..]`; the result is `[n out o..]` with
    /// `o = (s + 2 pad - dilation (k - 1) - 1) / stride + 1`.
    pub fn conv(&mut self, x: NodeId, w: NodeId, opts: &ConvOptions) -> Result<NodeId, OpError> {
        let op = "conv";
        let geo = self.conv_geometry(op, x, w, opts, false)?;
        let x = if geo.unbatched {
            let dims = [&[1], self.shape(x).dims()].concat();
            self.reshape(x, Shape::new(dims))?
        } else {
            x
        };
        let padding: Vec<(i64, i64)> = match &opts.padding {
            ConvPadding::Sizes(p) => p
                .resolve(op, "padding", geo.d, 0)?
                .into_iter()
                .map(|p| (p as i64, p as i64))
                .collect(),
            ConvPadding::Same => {
                if geo.stride.iter().any(|&s| s != 1) {
                    return Err(OpError::dim(
                        "conv: `:padding :same` needs `:stride 1`".to_string(),
                    ));
                }
                (0..geo.d)
                    .map(|i| {
                        let total = (geo.dilation[i] * (geo.kernel[i] - 1)) as i64;
                        (total / 2, total - total / 2)
                    })
                    .collect()
            }
        };
        // The flat path reads one row past the last window (see `conv_flat`).
        let flat = geo.groups == 1 && geo.stride.iter().all(|&s| s == 1);
        let mut padding = padding;
        if flat {
            padding[0].1 += 1;
        }
        let mut padded = x;
        for (i, &amount) in padding.iter().enumerate() {
            padded = self.pad_axis(
                op,
                padded,
                2 + i,
                amount,
                crate::build::window::PadMode::Constant,
                Scalar::Int(0),
            )?;
        }
        self.conv_unbatched(op, padded, w, &geo, flat, geo.unbatched)
    }

    /// Checks ranks, channels and groups of `x` and `w`; the options per axis.
    fn conv_geometry(
        &mut self,
        op: &str,
        x: NodeId,
        w: NodeId,
        opts: &ConvOptions,
        transposed: bool,
    ) -> Result<Geometry, OpError> {
        let dtype = self.same_dtype(op, &[x, w])?;
        if !dtype.is_numeric() {
            return Err(OpError::dtype(format!(
                "{op}: expects float or integer tensors, got {dtype}"
            )));
        }
        let (xs, ws) = (self.shape(x).clone(), self.shape(w).clone());
        let layout = if transposed {
            "[in out/groups k..]"
        } else {
            "[out in/groups k..]"
        };
        if !(3..=5).contains(&ws.rank()) {
            return Err(OpError::dim(format!(
                "{op}: the weight must be {layout} of rank 3, 4 or 5 (a 1-, 2- or 3-d convolution), got {ws}"
            )));
        }
        let d = ws.rank() - 2;
        if xs.rank() != d + 2 && xs.rank() != d + 1 {
            return Err(OpError::dim(format!(
                "{op}: a {d}-d convolution takes an input [n c s..] of rank {} (or {} without the batch axis), got {xs}",
                d + 2,
                d + 1
            ))
            .with_note(format!("the weight {ws} has {d} kernel axes")));
        }
        let unbatched = xs.rank() == d + 1;
        let channels = xs.dims()[usize::from(!unbatched)];
        if opts.groups < 1 || opts.groups > crate::shape::MAX_ELEMENTS as i64 {
            return Err(OpError::dim(format!(
                "{op}: `:groups` must be at least 1 and divide the channels, got {}",
                opts.groups
            )));
        }
        let groups = opts.groups as usize;
        let (w_in, w_out) = if transposed {
            (ws.dims()[0], ws.dims()[1] * groups)
        } else {
            (ws.dims()[1] * groups, ws.dims()[0])
        };
        if channels % groups != 0 || w_out % groups != 0 || w_in != channels {
            let what = if transposed {
                format!("the weight's first dim must be {channels}")
            } else if groups == 1 {
                format!("the weight's second dim must be {channels}")
            } else {
                format!(
                    "the weight's second dim must be {channels} / {groups} groups = {}",
                    channels as f64 / groups as f64
                )
            };
            let mut err = OpError::dim(format!(
                "{op}: the input has {channels} channels, so {what}; the weight is {ws}"
            ));
            if channels % groups != 0 || w_out % groups != 0 {
                err = err.with_note(format!(
                    "`:groups {groups}` must divide the {channels} input channels and the {w_out} output channels"
                ));
            }
            return Err(err);
        }
        Ok(Geometry {
            d,
            unbatched,
            groups,
            kernel: ws.dims()[2..].to_vec(),
            stride: opts.stride.resolve(op, "stride", d, 1)?,
            dilation: opts.dilation.resolve(op, "dilation", d, 1)?,
        })
    }

    /// im2col and GEMM on a padded `[n c s..]`: windows `[n c o1 k1 ..]`,
    /// then `[n*o.., groups, c/g * k..]` times the weight `[g, c/g * k.., out/g]`.
    fn conv_gemm(
        &mut self,
        op: &str,
        x: NodeId,
        w: NodeId,
        geo: &Geometry,
    ) -> Result<NodeId, OpError> {
        let d = geo.d;
        let cols = self.windows(op, x, 2, &geo.kernel, &geo.stride, &geo.dilation)?;
        let dims = self.shape(cols).dims().to_vec();
        let (n, c) = (dims[0], dims[1]);
        let outs: Vec<usize> = (0..d).map(|i| dims[2 + 2 * i]).collect();
        let mut perm: Vec<i64> = vec![0];
        perm.extend((0..d).map(|i| (2 + 2 * i) as i64));
        perm.push(1);
        perm.extend((0..d).map(|i| (3 + 2 * i) as i64));
        let cols = self.transpose(cols, &perm)?;
        let positions: usize = n * outs.iter().product::<usize>();
        let window: usize = geo.kernel.iter().product();
        let g = geo.groups;
        let out_channels = self.shape(w).dims()[0];
        let product = if g == 1 {
            let cols = self.reshape(cols, Shape::new(vec![positions, c * window]))?;
            let wm = self.reshape(w, Shape::new(vec![out_channels, c * window]))?;
            let wm = self.transpose(wm, &[1, 0])?;
            self.matmul(cols, wm)?
        } else {
            let cols = self.reshape(cols, Shape::new(vec![positions, g, c / g * window]))?;
            let cols = self.transpose(cols, &[1, 0, 2])?;
            let wm = self.reshape(w, Shape::new(vec![g, out_channels / g, c / g * window]))?;
            let wm = self.transpose(wm, &[0, 2, 1])?;
            let y = self.matmul(cols, wm)?;
            let y = self.transpose(y, &[1, 0, 2])?;
            self.reshape(y, Shape::new(vec![positions, out_channels]))?
        };
        let spatial = [&[n], outs.as_slice(), &[out_channels]].concat();
        let y = self.reshape(product, Shape::new(spatial))?;
        let mut back: Vec<i64> = vec![0, (d + 1) as i64];
        back.extend((1..=d).map(|i| i as i64));
        self.transpose(y, &back)
    }

    /// im2col and GEMM for stride 1 and one group, without transposes: the
    /// padded `[n c s1 s2 ..]` (with one spare row at the end of `s1`) is
    /// flattened to `[n c s1*s2*..]`, and each kernel position's window is
    /// one contiguous `slice` of it, `[n c o1*s2*..]`: the output over the
    /// full width, whose extra columns are cut off at the end. The slices
    /// `concat` to `[n k*c p]` (kernel position major), which the weight
    /// `[out k*c]` multiplies straight into `[n out p]`.
    fn conv_flat(
        &mut self,
        op: &str,
        x: NodeId,
        w: NodeId,
        geo: &Geometry,
    ) -> Result<NodeId, OpError> {
        let d = geo.d;
        let dims = self.shape(x).dims().to_vec();
        let (n, c) = (dims[0], dims[1]);
        // The spare row is not part of the image.
        let mut spatial = dims[2..].to_vec();
        spatial[0] -= 1;
        let mut outs = Vec::with_capacity(d);
        for i in 0..d {
            let span = geo.dilation[i] * (geo.kernel[i] - 1);
            outs.push(super::window::window_count(
                op,
                spatial[i],
                geo.kernel[i],
                1,
                geo.dilation[i],
                2 + i,
            )?);
            debug_assert_eq!(outs[i], spatial[i] - span);
        }
        let steps: Vec<usize> = (0..d).map(|i| dims[3 + i..].iter().product()).collect();
        let total: usize = dims[2..].iter().product();
        let p = outs[0] * steps[0];
        let flat = self.reshape(x, Shape::new(vec![n, c, total]))?;
        let window: usize = geo.kernel.iter().product();
        super::window::fits(op, "its im2col matrix", &[n, window, c, p])?;
        let mut pieces = Vec::with_capacity(window);
        for k in 0..window {
            let mut rest = k;
            let mut offset = 0;
            for i in (0..d).rev() {
                let j = rest % geo.kernel[i];
                rest /= geo.kernel[i];
                offset += j * geo.dilation[i] * steps[i];
            }
            pieces.push(self.slice(flat, 2, offset as i64, (offset + p) as i64)?);
        }
        let cols = self.concat(1, &pieces)?;
        let out_channels = self.shape(w).dims()[0];
        let mut perm: Vec<i64> = vec![0];
        perm.extend((0..d).map(|i| (2 + i) as i64));
        perm.push(1);
        let wm = self.transpose(w, &perm)?;
        let wm = self.reshape(wm, Shape::new(vec![out_channels, window * c]))?;
        let y = self.matmul(wm, cols)?;
        let grid = [&[n, out_channels, outs[0]], &dims[3..]].concat();
        let mut y = self.reshape(y, Shape::new(grid))?;
        for (i, &o) in outs.iter().enumerate().skip(1) {
            y = self.slice(y, (2 + i) as i64, 0, o as i64)?;
        }
        Ok(y)
    }

    /// `(conv-transpose x w ...)`: `w` is `[in out/groups k..]` as PyTorch;
    /// the result has `o = (s - 1) stride - 2 pad + dilation (k - 1) +
    /// output-padding + 1` along each spatial axis.
    pub fn conv_transpose(
        &mut self,
        x: NodeId,
        w: NodeId,
        opts: &ConvOptions,
    ) -> Result<NodeId, OpError> {
        let op = "conv-transpose";
        let geo = self.conv_geometry(op, x, w, opts, true)?;
        let ConvPadding::Sizes(padding) = &opts.padding else {
            return Err(OpError::dim(
                "conv-transpose: `:padding` takes sizes, not `:same`".to_string(),
            ));
        };
        let padding = padding.resolve(op, "padding", geo.d, 0)?;
        let extra = opts
            .output_padding
            .resolve(op, "output-padding", geo.d, 0)?;
        for ((&e, &s), &d) in extra.iter().zip(&geo.stride).zip(&geo.dilation) {
            if e >= s.max(d) {
                return Err(OpError::dim(format!(
                    "{op}: `:output-padding` {e} must be less than the stride {s} or the dilation {d}"
                )));
            }
        }
        let mut x = if geo.unbatched {
            let dims = [&[1], self.shape(x).dims()].concat();
            self.reshape(x, Shape::new(dims))?
        } else {
            x
        };
        let flat = geo.groups == 1;
        for i in 0..geo.d {
            x = self.spread(x, 2 + i, geo.stride[i])?;
            let reach = (geo.dilation[i] * (geo.kernel[i] - 1)) as i64;
            let lo = reach - padding[i] as i64;
            // The flat path's spare row (see `conv_flat`).
            let spare = i64::from(flat && i == 0);
            let amount = (lo, lo + extra[i] as i64 + spare);
            x = self.pad_axis(
                op,
                x,
                2 + i,
                amount,
                crate::build::window::PadMode::Constant,
                Scalar::Int(0),
            )?;
        }
        let w = self.flipped_weight(w, &geo)?;
        let inner = Geometry {
            stride: vec![1; geo.d],
            unbatched: false,
            ..geo
        };
        self.conv_unbatched(op, x, w, &inner, flat, geo.unbatched)
    }

    /// The convolution of the padded (or spread) input, as one flat
    /// product or im2col and a GEMM, without the batch axis when the input
    /// had none.
    fn conv_unbatched(
        &mut self,
        op: &str,
        x: NodeId,
        w: NodeId,
        geo: &Geometry,
        flat: bool,
        unbatched: bool,
    ) -> Result<NodeId, OpError> {
        let y = if flat {
            self.conv_flat(op, x, w, geo)?
        } else {
            self.conv_gemm(op, x, w, geo)?
        };
        if unbatched {
            let dims = self.shape(y).dims()[1..].to_vec();
            return self.reshape(y, Shape::new(dims));
        }
        Ok(y)
    }

    /// `stride - 1` zeros between neighbours along `axis`: `[a b c]` with
    /// stride 2 is `[a 0 b 0 c]`.
    fn spread(&mut self, x: NodeId, axis: usize, stride: usize) -> Result<NodeId, OpError> {
        if stride == 1 {
            return Ok(x);
        }
        let dims = self.shape(x).dims().to_vec();
        let n = dims[axis];
        let mut split = dims.clone();
        split.insert(axis + 1, 1);
        let column = self.reshape(x, Shape::new(split.clone()))?;
        split[axis + 1] = stride - 1;
        let dtype = self.dtype(x);
        let zeros = self.zeros(Shape::new(split), dtype);
        let both = self.concat((axis + 1) as i64, &[column, zeros])?;
        let mut flat = dims;
        flat[axis] = n * stride;
        super::window::fits(
            "conv-transpose",
            "the input spread out by the stride",
            &flat,
        )?;
        let flat = self.reshape(both, Shape::new(flat))?;
        self.slice(flat, axis as i64, 0, ((n - 1) * stride + 1) as i64)
    }

    /// The transposed conv's weight `[in out/g k..]` as a conv weight
    /// `[out in/g k..]`, each kernel flipped.
    fn flipped_weight(&mut self, w: NodeId, geo: &Geometry) -> Result<NodeId, OpError> {
        let dims = self.shape(w).dims().to_vec();
        let (cin, cout_g, g) = (dims[0], dims[1], geo.groups);
        let mut w = w;
        for i in 0..geo.d {
            let k = geo.kernel[i];
            let ids: Vec<usize> = (0..k).rev().collect();
            w = self.take(w, 2 + i, &[k], &ids)?;
        }
        let grouped = [&[g, cin / g, cout_g], &dims[2..]].concat();
        let w = self.reshape(w, Shape::new(grouped))?;
        let mut perm: Vec<i64> = vec![0, 2, 1];
        perm.extend((0..geo.d).map(|i| (3 + i) as i64));
        let w = self.transpose(w, &perm)?;
        let flat = [&[g * cout_g, cin / g], &dims[2..]].concat();
        self.reshape(w, Shape::new(flat))
    }
}
