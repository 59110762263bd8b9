import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import {
  costKind,
  fixOpenCalls,
  lookupPerf,
  parseAnnotate,
  parsePerfMap,
  renameJit,
} from '../src/callgrind-files.js'
import { buildModule, parseCallgrindOptions } from '../src/callgrind-options.js'

/** Build folders resolve to `<dir>/index.js` here, without touching the disk. */
const fakeBuild = (dir: string) => `${dir}/index.js`

describe('bench:callgrind options', () => {
  it('has small defaults: this checkout, the empty pipeline and the bare proxy', () => {
    const o = parseCallgrindOptions([], '/repo', fakeBuild)
    assert.deepEqual(o.builds, [{ label: 'current', module: '/repo/index.js' }])
    assert.deepEqual(o.targets, ['empty', 'bare'])
    assert.equal(o.warmup, 2000)
    assert.equal(o.calls, 300)
    assert.equal(o.concurrency, 1)
    assert.deepEqual(o.scenarios, ['single'])
    assert.equal(o.turns, 50)
    assert.equal(o.conversations, 4)
    assert.deepEqual(o.nodeFlags, [])
    assert.equal(o.out, '/repo/bench/results/callgrind')
  })

  it('reads builds side by side, targets, counts and node flags', () => {
    const o = parseCallgrindOptions(
      [
        '--builds',
        'old=/tmp/old,new=/work',
        '--targets',
        'bare,standard,empty,bare',
        '--warmup',
        '0',
        '--calls',
        '50',
        '--concurrency',
        '4',
        '--top',
        '10',
        '--scenarios',
        'last,single,last',
        '--turns',
        '20',
        '--conversations',
        '3',
        '--node-flags',
        '--jitless  --max-semi-space-size=32',
        '--out',
        '/tmp/cg',
      ],
      '/repo',
      fakeBuild,
    )
    assert.deepEqual(o.builds, [
      { label: 'old', module: '/tmp/old/index.js' },
      { label: 'new', module: '/work/index.js' },
    ])
    // In the order given, each once.
    assert.deepEqual(o.targets, ['bare', 'standard', 'empty'])
    assert.equal(o.warmup, 0)
    assert.equal(o.calls, 50)
    assert.equal(o.concurrency, 4)
    assert.equal(o.top, 10)
    assert.deepEqual(o.scenarios, ['last', 'single'])
    assert.equal(o.turns, 20)
    assert.equal(o.conversations, 3)
    assert.deepEqual(o.nodeFlags, ['--jitless', '--max-semi-space-size=32'])
    assert.equal(o.out, '/tmp/cg')
  })

  it('refuses typos, bad numbers, unknown targets and malformed builds', () => {
    const bad: string[][] = [
      ['--call', '5'],
      ['--calls'],
      ['--calls', '0'],
      ['--calls', '2.5'],
      ['--calls', ''],
      ['--warmup', '-1'],
      ['--concurrency', 'many'],
      ['--targets', 'empty,portkey'],
      ['--targets', ','],
      ['--scenarios', 'single,multi'],
      ['--scenarios', ''],
      ['--turns', '0'],
      ['--conversations', 'x'],
      ['--builds', 'old'],
      ['--builds', '=/tmp/old'],
      ['--builds', 'old='],
      ['--builds', 'a=/x,a=/y'],
      ['calls', '5'],
    ]
    for (const argv of bad)
      assert.throws(() => parseCallgrindOptions(argv, '/repo', fakeBuild), Error, argv.join(' '))
  })

  it('finds a build as a tree with host/dist/src or as a dist/src folder, and names what is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'callgrind-build-'))
    try {
      mkdirSync(join(dir, 'tree', 'host', 'dist', 'src'), { recursive: true })
      writeFileSync(join(dir, 'tree', 'host', 'dist', 'src', 'index.js'), '')
      mkdirSync(join(dir, 'dist'))
      writeFileSync(join(dir, 'dist', 'index.js'), '')
      assert.equal(buildModule(join(dir, 'tree')), join(dir, 'tree', 'host', 'dist', 'src', 'index.js'))
      assert.equal(buildModule(join(dir, 'dist')), join(dir, 'dist', 'index.js'))
      assert.throws(() => buildModule(join(dir, 'nothing')), /holds neither/)
      assert.throws(
        () => parseCallgrindOptions(['--builds', `x=${join(dir, 'nothing')}`], '/repo'),
        /build it/,
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('bench:callgrind files', () => {
  const perf = [
    '7f0000001000 100 JS:*handle file:///w/host/dist/src/gateway/handler.js:10:3',
    '7f0000002000 40 JS:^seal file:///w/host/dist/src/audit/hash-chain.js:5:1',
    'not a line',
    // The same start again later (code space reused): the later name wins.
    '7f0000002000 40 JS:*sealEach file:///w/host/dist/src/audit/hash-chain.js:40:1',
  ].join('\n')

  it('looks addresses up in node’s perf map', () => {
    const entries = parsePerfMap(perf)
    assert.equal(entries.length, 2)
    assert.match(lookupPerf(entries, 0x7f0000001000n)!.name, /handle/)
    assert.match(lookupPerf(entries, 0x7f00000010ffn)!.name, /handle/)
    assert.equal(lookupPerf(entries, 0x7f0000001100n), undefined)
    assert.equal(lookupPerf(entries, 0x7f0000000fffn), undefined)
    assert.match(lookupPerf(entries, 0x7f0000002010n)!.name, /sealEach/)
  })

  it('names JIT code by its JS function and leaves every other line alone', () => {
    const dump = [
      'fn=(1) 0x00007f0000001010',
      '0 10',
      'cfn=(2) 0x00007f0000002004',
      'calls=3 0',
      '0 30',
      'fn=(3) 0x0000000000401000',
      'fn=(4) Builtins_LoadIC',
      'cfn=(2)',
    ].join('\n')
    const { text, renamed } = renameJit(dump, perf)
    assert.equal(renamed, 2)
    assert.deepEqual(text.split('\n'), [
      'fn=(1) JS:*handle file:///w/host/dist/src/gateway/handler.js:10:3',
      '0 10',
      'cfn=(2) JS:*sealEach file:///w/host/dist/src/audit/hash-chain.js:40:1',
      'calls=3 0',
      '0 30',
      'fn=(3) 0x0000000000401000',
      'fn=(4) Builtins_LoadIC',
      'cfn=(2)',
    ])
  })

  it('counts calls open at the zero as one call', () => {
    assert.equal(fixOpenCalls('calls=0 242 \n0 898\ncalls=10 0\n'), 'calls=1 242 \n0 898\ncalls=10 0\n')
  })

  it('reads callgrind_annotate totals and rows', () => {
    const out = [
      'Ir',
      '--------',
      '160,032,529 (100.0%)  PROGRAM TOTALS',
      '',
      '11,826,300 ( 7.39%)  ???:fe_mul [/usr/bin/node]',
      ' 6,494,122 ( 4.06%)  ???:Builtins_LoadIC [/usr/bin/node]',
    ].join('\n')
    assert.deepEqual(parseAnnotate(out), {
      total: 160_032_529,
      rows: [
        { ir: 11_826_300, name: '???:fe_mul [/usr/bin/node]' },
        { ir: 6_494_122, name: '???:Builtins_LoadIC [/usr/bin/node]' },
      ],
    })
    assert.throws(() => parseAnnotate('nothing'), /PROGRAM TOTALS/)
  })

  it('tells V8 garbage collection and compiler work from the rest', () => {
    for (const gc of [
      '???:void v8::internal::MarkingVisitorBase<v8::internal::ConcurrentMarkingVisitor, v8::internal::ConcurrentMarkingState>::ProcessStrongHeapObject',
      '???:v8::internal::Sweeper::RawSweep(v8::internal::Page*) [/usr/bin/node]',
      '???:heap::base::SlotCallbackResult v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>',
      '???:v8::internal::HeapObject::SizeFromMap(v8::internal::Map) const [/usr/bin/node]',
    ])
      assert.equal(costKind(gc), 'gc', gc)
    for (const compiler of [
      '???:v8::internal::compiler::GraphReducer::ReduceTop() [/usr/bin/node]',
      '???:v8::internal::maglev::MaglevGraphBuilder::Build() [/usr/bin/node]',
    ])
      assert.equal(costKind(compiler), 'compiler', compiler)
    for (const other of [
      '???:fe_mul [/usr/bin/node]',
      '???:Builtins_LoadIC [/usr/bin/node]',
      '???:JS:*handle file:///w/host/dist/src/gateway/gateway-handler.js:51:17 [???]',
      '???:v8::internal::JsonStringifier::SerializeString(v8::internal::Handle<v8::internal::String>) [/usr/bin/node]',
    ])
      assert.equal(costKind(other), 'other', other)
  })
})
