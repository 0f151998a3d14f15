/**
 * The layer rules of src/ (see src/README.md), checked by `npm test` (test/layers.test.ts):
 * the domain imports only the domain; the store imports the domain; everything else reaches
 * data only through the port; use cases reach only the domain, the port and the services they use;
 * subsystems do not reach into each other's callers; the commands load the HTTP application only
 * to serve; no cycles.
 */
const OUTSIDE_DOMAIN = '^src/(?!domain/)';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle ties modules together so that neither can be read, tested or moved alone.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-imports-only-the-domain',
      comment: 'The domain is pure rules: it knows nothing of HTTP, SQL, jobs or commands.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: OUTSIDE_DOMAIN },
    },
    {
      name: 'domain-does-no-io',
      comment: 'The domain reads no file, network or database.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        dependencyTypes: ['npm', 'core'],
        path: '(^|/)(fastify|pg|better-sqlite3|fs|net|http|https|child_process)(/|$)',
      },
    },
    {
      name: 'store-imports-only-the-domain',
      comment: 'The store adapts the domain to a database; it knows nothing of who calls it.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(?!domain/|store/)' },
    },
    {
      name: 'data-only-through-the-port',
      comment: 'Outside the store, code sees the port (and how to open one), never an adapter or its SQL.',
      severity: 'error',
      from: { path: '^src/(?!store/)' },
      to: { path: '^src/store/(?!port\\.ts$|ports/|open\\.ts$|availability\\.ts$|wrap-methods\\.ts$)' },
    },
    {
      name: 'http-does-not-reach-commands-jobs-or-transfer',
      comment: 'The HTTP application is one of the things the commands run, not the other way round.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(cli|jobs|transfer)/' },
    },
    {
      name: 'commands-leave-the-http-application-to-serve',
      comment:
        'Every command but serve starts without the HTTP application, about a quarter of a start: of the commands, only cli/serving.ts imports it.',
      severity: 'error',
      from: { path: '^src/cli/', pathNot: '^src/cli/serving\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'serving-is-loaded-only-when-serving',
      comment:
        'cli/serving.ts, and the HTTP application with it, is imported only dynamically, by the serve command as it runs.',
      severity: 'error',
      from: {},
      to: { path: '^src/cli/serving\\.ts$', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'use-cases-import-only-the-domain-the-port-and-services',
      comment:
        'A use case is the steps of one operation, for HTTP and the commands alike: it imports the domain, the store port, mail, secrets, webhooks and other use cases, never HTTP or a command.',
      severity: 'error',
      from: { path: '^src/use-cases/' },
      to: { path: '^src/(?!domain/|store/|mail/|secrets/|webhooks/|use-cases/)' },
    },
    {
      name: 'subsystems-do-not-reach-their-callers',
      comment:
        'Jobs, webhook delivery, transfer, secrets, backups and mail serve HTTP and the commands, and import neither.',
      severity: 'error',
      from: { path: '^src/(jobs|webhooks|transfer|secrets|backups|mail)/' },
      to: { path: '^src/(http|cli)/' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  },
};
