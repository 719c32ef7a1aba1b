-- The Neovim side of `uitest::neovim` (`neovim.rs`): what both languages'
-- test scripts do as an LSP client of headless Neovim (0.7 or later), loaded
-- with `dofile(os.getenv("CLIENT"))`. Each script opens its file, asks, and
-- hands what it saw to `finish`, which writes $PROJECT/result.json.
local M = {}

M.dir = os.getenv("PROJECT")

--- Opens `file` of the project and starts `name`'s server ($SERVER) on it
--- with these init options; the buffer, its URI and a `request` function.
function M.start(name, file, init_options)
  vim.cmd("edit " .. M.dir .. "/" .. file)
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = name,
    cmd = { os.getenv("SERVER"), "lsp" },
    root_dir = M.dir,
    workspace_folders = { { uri = vim.uri_from_fname(M.dir), name = "project" } },
    init_options = init_options,
  })
  vim.lsp.buf_attach_client(buf, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local function request(method, params)
    local response = client.request_sync(method, params, 20000, buf)
    return response and response.result
  end
  return buf, vim.uri_from_bufnr(buf), client_id, request
end

--- What both languages' scripts ask first: starts `name`'s server on `file`
--- with $PROJECT/library as libraryDir and records in `out` the diagnostics,
--- the hover at `line`, `character` and the inlay hints; the buffer, its
--- URI, the client and `request`, as `start` gives them.
function M.open(out, name, file, line, character)
  local buf, uri, client_id, request = M.start(name, file, { libraryDir = M.dir .. "/library" })
  out.diagnostics = M.diagnostics(buf)
  local hover = request("textDocument/hover", M.position(uri, line, character))
  out.hover = hover and hover.contents.value
  out.inlay = M.inlay(request, uri)
  return buf, uri, client_id, request
end

function M.position(uri, line, character)
  return { textDocument = { uri = uri }, position = { line = line, character = character } }
end

--- The diagnostics of `buf` once some arrived: line, column and code of each.
function M.diagnostics(buf)
  vim.wait(20000, function()
    return #vim.diagnostic.get(buf) > 0
  end, 20)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then
      code = d.user_data.lsp.code
    end
    table.insert(out, { line = d.lnum, col = d.col, code = code })
  end
  return out
end

--- The inlay hints of the document's first 100 lines.
function M.inlay(request, uri)
  local hints = request("textDocument/inlayHint", {
    textDocument = { uri = uri },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = 100, character = 0 } },
  })
  local out = {}
  for _, h in ipairs(hints or {}) do
    table.insert(out, { line = h.position.line, character = h.position.character, label = h.label })
  end
  return out
end

--- Jumps to `location` and says where the cursor landed; then back to `buf`.
function M.jump(location, buf)
  vim.lsp.util.jump_to_location(location, "utf-16")
  local landed = {
    file = vim.api.nvim_buf_get_name(0),
    line = vim.api.nvim_win_get_cursor(0)[1],
    col = vim.api.nvim_win_get_cursor(0)[2],
    line_text = vim.api.nvim_get_current_line(),
    readonly = vim.bo.readonly,
  }
  vim.cmd("buffer " .. buf)
  return landed
end

--- A clean shutdown: the server must answer `shutdown` and exit on `exit`.
function M.stop(client_id)
  vim.lsp.stop_client(client_id)
  return vim.wait(5000, function()
    return vim.lsp.get_client_by_id(client_id) == nil
  end, 20)
end

--- Runs `body(out)` and writes `out` (with `error` if it failed) as result.json, then quits.
function M.run(body)
  local out = {}
  local ok, err = pcall(body, out)
  if not ok then
    out.error = tostring(err)
  end
  vim.fn.writefile({ vim.fn.json_encode(out) }, M.dir .. "/result.json")
  vim.cmd("qa!")
end

return M
