#!/usr/bin/env node
// `npx onceport …`: runs the TypeScript sources through @swc-node/register, with the workspace's
// tsconfig so the @onceport/* aliases resolve wherever the command is run from.
'use strict';
const path = require('node:path');

process.env.SWC_NODE_PROJECT = path.join(__dirname, '../../../tsconfig.base.json');
require('@swc-node/register');
require('../src/main.ts');
