-- Drives headless Neovim as a real LSP client of `sexpgpu lsp` (through
-- uitest's shared client half): opens main.sx with $PROJECT/library as
-- libraryDir, and reports diagnostics, a hover's shape, inlay hints, go to
-- definition into the read-only library, and the buffer after formatting.
local nvim = dofile(os.getenv("CLIENT"))

nvim.run(function(out)
  -- The hover is on `matmul` of the good graph.
  local buf, uri, client_id, request = nvim.open(out, "sexpgpu", "main.sx", 3, 13)
  -- Go to definition on `nn/relu`: the library file opens, read-only.
  out.library = nvim.jump(request("textDocument/definition", nvim.position(uri, 4, 8)), buf)
  -- Formatting: the server's edits applied to the buffer.
  local edits = request("textDocument/formatting", {
    textDocument = { uri = uri },
    options = { tabSize = 2, insertSpaces = true },
  })
  vim.lsp.util.apply_text_edits(edits or {}, buf, "utf-16")
  out.formatted = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  out.stopped = nvim.stop(client_id)
end)
