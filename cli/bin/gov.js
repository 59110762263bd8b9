#!/usr/bin/env node
// Decorator metadata (tsyringe) must exist before any host module loads.
import 'reflect-metadata'
import '../dist/src/main.js'
