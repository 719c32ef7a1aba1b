//! NCCL collectives over host buffers (feature `cuda`): each call copies
//! the host data into one device buffer on this rank's GPU, runs the NCCL
//! collective on the rank's own stream and copies the result back. The
//! GPU is the rank's local rank: one process per GPU, as NCCL requires.
//! This is the path a run whose gradients come back to the host takes
//! (docs/sexpgpu/distributed.md says what staying on the device would
//! save).

use crate::nccl::{Buffers, Communicator, Elem, Nccl};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use std::ffi::c_void;
use std::sync::Arc;

/// A rank's GPU, stream, NCCL communicator and staging buffer.
pub struct Staged<'a> {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    comm: Communicator<'a>,
    buffer: Option<CudaSlice<f32>>,
    size: usize,
    rank: usize,
}

fn cuda(e: cudarc::driver::DriverError) -> String {
    format!("CUDA: {e}")
}

impl<'a> Staged<'a> {
    /// Opens the local rank's GPU and joins the NCCL communicator whose
    /// unique id `broadcast` carries from rank 0.
    pub fn open(
        nccl: &'a Nccl,
        rank: usize,
        size: usize,
        local_rank: usize,
        broadcast: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), String>,
    ) -> Result<Staged<'a>, String> {
        let gpus = CudaContext::device_count().map_err(cuda)? as usize;
        if local_rank >= gpus {
            return Err(format!(
                "local rank {local_rank} needs GPU {local_rank}, and this machine has {gpus}: \
                 launch at most {gpus} ranks a machine"
            ));
        }
        let ctx = CudaContext::new(local_rank).map_err(cuda)?;
        let stream = ctx.new_stream().map_err(cuda)?;
        let id = nccl.bootstrap(rank, broadcast)?;
        ctx.bind_to_thread().map_err(cuda)?;
        let comm = nccl.communicator(id, rank, size)?;
        Ok(Staged {
            ctx,
            stream,
            comm,
            buffer: None,
            size,
            rank,
        })
    }

    /// Sums `data` over the ranks, in place.
    pub fn all_reduce_sum(&mut self, data: &mut [f32]) -> Result<(), String> {
        self.ctx.bind_to_thread().map_err(cuda)?;
        let stream = self.stream.clone();
        let len = data.len();
        let buffer = staging(&mut self.buffer, &stream, len)?;
        let mut view = buffer.slice_mut(..len);
        stream.memcpy_htod(data, &mut view).map_err(cuda)?;
        {
            let (ptr, _sync) = view.device_ptr(&stream);
            // SAFETY: `ptr` is `len` floats on this rank's device and stream.
            unsafe {
                self.comm
                    .all_reduce_sum(ptr, len, Elem::F32, stream.cu_stream().cast())?
            };
        }
        stream.memcpy_dtoh(&view, data).map_err(cuda)?;
        stream.synchronize().map_err(cuda)
    }

    /// Sums `data` over the ranks and gives this rank its equal part
    /// (`data.len()` must divide by the world size; NCCL's parts are equal).
    pub fn reduce_scatter_sum(&mut self, data: &[f32]) -> Result<Vec<f32>, String> {
        if !data.len().is_multiple_of(self.size) {
            return Err(format!(
                "NCCL reduce-scatter needs a length that divides by {}, got {}",
                self.size,
                data.len()
            ));
        }
        let part = data.len() / self.size;
        // SAFETY: `send` holds part * size floats, `recv` part.
        self.send_recv(data, part, part, |comm, b, s| unsafe {
            comm.reduce_scatter_sum(b, s)
        })
    }

    /// Every rank's equal part, in rank order.
    pub fn all_gather(&mut self, mine: &[f32]) -> Result<Vec<f32>, String> {
        let len = mine.len();
        // SAFETY: `send` holds `len` floats, `recv` len * size.
        self.send_recv(mine, len, len * self.size, |comm, b, s| unsafe {
            comm.all_gather(b, s)
        })
    }

    /// Copies `data` to a device buffer, runs `collective` from it to a
    /// buffer of `recv_len` floats (`count` of them per rank: the NCCL
    /// call's count) and returns that buffer's floats.
    fn send_recv(
        &mut self,
        data: &[f32],
        count: usize,
        recv_len: usize,
        collective: impl FnOnce(&Communicator<'a>, Buffers, *mut c_void) -> Result<(), String>,
    ) -> Result<Vec<f32>, String> {
        self.ctx.bind_to_thread().map_err(cuda)?;
        let stream = self.stream.clone();
        let send = stream.clone_htod(data).map_err(cuda)?;
        let recv = stream.alloc_zeros::<f32>(recv_len.max(1)).map_err(cuda)?;
        {
            let (s, _a) = send.device_ptr(&stream);
            let (r, _b) = recv.device_ptr(&stream);
            let b = Buffers {
                send: s,
                recv: r,
                count,
                elem: Elem::F32,
            };
            collective(&self.comm, b, stream.cu_stream().cast())?;
        }
        let mut out = stream.clone_dtoh(&recv).map_err(cuda)?;
        out.truncate(recv_len);
        stream.synchronize().map_err(cuda)?;
        Ok(out)
    }

    pub fn rank(&self) -> usize {
        self.rank
    }
}

/// The staging buffer, grown to at least `len` floats.
fn staging<'b>(
    buffer: &'b mut Option<CudaSlice<f32>>,
    stream: &Arc<CudaStream>,
    len: usize,
) -> Result<&'b mut CudaSlice<f32>, String> {
    if buffer.as_ref().is_none_or(|b| b.len() < len) {
        *buffer = Some(stream.alloc_zeros::<f32>(len.max(1)).map_err(cuda)?);
    }
    buffer
        .as_mut()
        .ok_or_else(|| "no staging buffer".to_string())
}
