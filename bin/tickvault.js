#!/usr/bin/env node
// Thin launcher so `npx tickvault` runs the compiled CLI.
import '../dist/cli/main.js';
