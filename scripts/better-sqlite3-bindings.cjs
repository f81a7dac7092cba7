// Stands in for the `bindings` package inside the one-file build of `serve`: better-sqlite3's
// JavaScript is bundled (its dozen CommonJS files took ~5 ms to load apart), its native addon
// stays in its package. `bindings` finds the addon from its caller's file, which would be the
// bundle, so it is told better-sqlite3's own root; the search it then makes is unchanged.
// CommonJS, because better-sqlite3 calls `require('bindings')(name)`.
'use strict';
const { dirname } = require('node:path');

module.exports = function bindings(name) {
  return require('bindings')({
    bindings: name,
    module_root: dirname(require.resolve('better-sqlite3/package.json')),
  });
};
