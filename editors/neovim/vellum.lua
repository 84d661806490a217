-- Neovim (0.7 or later): Vellum's language server for *.polylang files. Put this file in your config
-- (e.g. ~/.config/nvim/plugin/vellum.lua); `vellum` must be on PATH (npm install -g vellum, or a project's
-- node_modules/.bin). Gives diagnostics as you type, hover (K), go to definition (gd), the outline and formatting.
vim.cmd([[autocmd BufRead,BufNewFile *.polylang setfiletype polylang]])

vim.api.nvim_create_autocmd('FileType', {
  pattern = 'polylang',
  callback = function(args)
    local client = vim.lsp.start_client({
      name = 'vellum',
      cmd = { 'vellum', 'lsp', '--stdio' },
      root_dir = vim.fn.getcwd(),
    })
    if client then vim.lsp.buf_attach_client(args.buf, client) end
    vim.keymap.set('n', 'K', vim.lsp.buf.hover, { buffer = args.buf })
    vim.keymap.set('n', 'gd', vim.lsp.buf.definition, { buffer = args.buf })
    vim.keymap.set('n', '<leader>f', vim.lsp.buf.formatting, { buffer = args.buf })
  end,
})
