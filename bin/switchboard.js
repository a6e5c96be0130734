#!/usr/bin/env node
'use strict';
// The operator command. It runs the compiled CLI, which `npm install` builds (and `npm start`
// or `npm run build` rebuilds when a source changed).
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'cli', 'index.js');
if (!fs.existsSync(entry)) {
  console.error('switchboard: the CLI is not built yet. Run `npm run build` (npm install and npm start do it too).');
  process.exit(1);
}
require(entry).runCli(process.argv);
