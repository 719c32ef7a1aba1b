-- Drives headless Neovim as a real LSP client of `shapescript lsp` (through
-- uitest's shared client half): opens main.ss with $PROJECT/library as
-- libraryDir, and reports diagnostics, a dim hover, inlay hints, and go to
-- definition into vision.ss and into the read-only library folder.
local nvim = dofile(os.getenv("CLIENT"))

nvim.run(function(out)
  -- The hover is on `D` of `dim D = 64`.
  local buf, uri, client_id, request = nvim.open(out, "shapescript", "main.ss", 3, 4)
  -- Go to definition on `vision.Images`: the cursor lands in vision.ss.
  out.vision = nvim.jump(request("textDocument/definition", nvim.position(uri, 11, 21)), buf)
  -- Go to definition on `gelu`: the library file opens, read-only.
  out.library = nvim.jump(request("textDocument/definition", nvim.position(uri, 8, 3)), buf)
  out.stopped = nvim.stop(client_id)
end)
