-- Drives headless Neovim (0.7 or later) as a real LSP client of `sexpgpu lsp`:
-- opens main.sx, starts the server given in $SERVER with $PROJECT/library as
-- libraryDir, and writes what it saw to $PROJECT/result.json for the Rust
-- test to check: diagnostics, a hover's shape, inlay hints, go to
-- definition into the read-only library, and formatting.
local dir = os.getenv("PROJECT")
local server = os.getenv("SERVER")
local out = {}

local function position(uri, line, character)
  return { textDocument = { uri = uri }, position = { line = line, character = character } }
end

local ok, err = pcall(function()
  vim.cmd("edit " .. dir .. "/main.sx")
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  local client_id = vim.lsp.start_client({
    name = "sexpgpu",
    cmd = { server, "lsp" },
    root_dir = dir,
    workspace_folders = { { uri = vim.uri_from_fname(dir), name = "project" } },
    init_options = { libraryDir = dir .. "/library" },
  })
  vim.lsp.buf_attach_client(buf, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local function request(method, params)
    local response = client.request_sync(method, params, 20000, buf)
    if response == nil then
      return nil
    end
    return response.result
  end

  vim.wait(20000, function()
    return #vim.diagnostic.get(buf) > 0
  end, 20)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then
      code = d.user_data.lsp.code
    end
    table.insert(out.diagnostics, { line = d.lnum, col = d.col, code = code })
  end

  -- On `matmul` of the good graph.
  local hover = request("textDocument/hover", position(uri, 3, 13))
  out.hover = hover and hover.contents.value

  local hints = request("textDocument/inlayHint", {
    textDocument = { uri = uri },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = 100, character = 0 } },
  })
  out.inlay = {}
  for _, h in ipairs(hints or {}) do
    table.insert(out.inlay, { line = h.position.line, character = h.position.character, label = h.label })
  end

  -- Go to definition on `nn/relu`: the library file opens, read-only.
  local found = request("textDocument/definition", position(uri, 4, 8))
  vim.lsp.util.jump_to_location(found, "utf-16")
  out.library = {
    file = vim.api.nvim_buf_get_name(0),
    line_text = vim.api.nvim_get_current_line(),
    readonly = vim.bo.readonly,
  }
  vim.cmd("buffer " .. buf)

  -- Formatting: the edits applied to the buffer.
  local edits = request("textDocument/formatting", {
    textDocument = { uri = uri },
    options = { tabSize = 2, insertSpaces = true },
  })
  vim.lsp.util.apply_text_edits(edits or {}, buf, "utf-16")
  out.formatted = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")

  vim.lsp.stop_client(client_id)
  out.stopped = vim.wait(5000, function()
    return vim.lsp.get_client_by_id(client_id) == nil
  end, 20)
end)

if not ok then
  out.error = tostring(err)
end
vim.fn.writefile({ vim.fn.json_encode(out) }, dir .. "/result.json")
vim.cmd("qa!")
