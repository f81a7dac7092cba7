/** opsdesk's Chinese texts: every key of `OpsdeskMessages`, as the English table has them. */
import { codeBlock, codeSpan } from '../shorten.js';
import type { OpsdeskMessages, SchemaChange, ShownObject, TableChange } from './types.js';

/** 结构对象的种类。 */
const KIND = {
  table: '表',
  index: '索引',
  view: '视图',
  trigger: '触发器',
  function: '函数',
  rule: '规则',
  sequence: '序列',
} as const;

/** 结构对象的显示方式：种类，然后名称。 */
const object = (o: ShownObject) => `${KIND[o.kind]} ${codeSpan(o.name)}`;

/** A kind of change as a verb, for the refusal of a run that changed rows in another way than confirmed. */
const ZH_CHANGE = { inserted: '插入', updated: '更新', deleted: '删除' } as const;

export const zh: OpsdeskMessages = {
  dateLocale: 'zh-CN',
  sizeUnits: ['字节', 'KB', 'MB', 'GB'],
  series: (items) => items.join('、'),

  env: { dev: '开发 (dev)', staging: '预发 (staging)', prod: '生产 (prod)' },
  envTitle: '目标环境',
  envHelp: '选择生产环境时，还需要填写已审批的发布单号。',
  envMessage: (service, version) => `要把「${service}」${version} 部署到哪个环境？`,
  confirmTitle: '我确认已检查过变更内容，并承担本次生产发布的风险',
  ticketTitle: '发布单号',
  ticketHelp: '该服务已审批的发布单号，例如 REL-1001',
  prodMessage: (service, from, to) =>
    `确认要将「${service}」部署到【生产环境】（${from === undefined ? `${to}，首次部署到生产环境` : from === to ? `${to}，重新部署，当前已是 ${from}` : `${from} → ${to}`}）吗？请勾选确认并填写已审批的发布单号。`,
  notConfirmed: '没有勾选生产发布确认。',
  ticketUnknown: (t) => `发布单 ${t} 不存在。`,
  ticketOtherService: (t, s) => `发布单 ${t} 属于 ${s}，不是本服务。`,
  ticketNotApproved: (t, status) => `发布单 ${t} 的状态是 ${status}，尚未审批通过。`,
  noSuchService: (s, access, yours) =>
    `没有你可以${{ see: '查看', deploy: '部署', report: '生成报告' }[access]}的服务「${s}」。${yours.length > 0 ? `你可以操作的服务：${yours.join('、')}。` : '你没有任何服务的权限。'}`,
  deployed: (s, v, env, id, ticket) =>
    `已将 ${s} ${v} 部署到 ${env}（部署 #${id}${ticket ? `，发布单 ${ticket}` : ''}）。`,
  unknownCaller: (who) =>
    `opsdesk 无法确认调用者身份（${who === undefined ? '无身份' : `账户 ${who}`}），因此没有执行任何操作。`,
  removedAccount: (name, id) => `${name}（已删除的账户 #${id}）`,
  noAccount: (name) => `${name}（无账户）`,
  noDeployments: '还没有任何部署记录。',
  deploymentsHeader: (n) => `共 ${n} 条部署记录：`,
  deploymentsListed: (listed, total) => `（共 ${total} 条，仅列出最新的 ${listed} 条。）`,

  understoodTitle: '我已了解此语句执行后无法撤销',
  typedTableTitle: '输入表名以确认',
  typedTableHelp: '与该语句修改的表名完全一致',
  confirmSql: (c) =>
    [
      c.bound
        ? `该语句每次执行的影响都不同（它调用了 ${c.bound.sources.map((f) => `${f}()`).join('、')}），无法给出确定的行数。请确认它最多可修改${c.bound.tables.map((b) => ` ${codeSpan(b.name)} 中的 ${b.rows} 行`).join('、')}${schemaWords(c.schema)}。如果确认后的执行会修改更多，将不做任何修改。`
        : `该语句将${c.what}。它已执行一次并已回滚，结果如下：\n${didLines(c.did ?? [], c.schema)}\n如果你确认前商店数据发生变化、该语句会做得更多，将不做任何修改。`,
      `语句：\n${codeBlock(c.statement)}`,
      `如需执行，请勾选确认并输入 ${codeSpan(c.target)}。${c.exact ? '' : '请严格按此处显示的内容输入：该名称无法原样显示（其中含有换行、连续空格、控制字符或双向文字控制字符——此处显示为 \uFFFD——或过长，已在「…」处截短）。'}执行后无法撤销。`,
    ].join('\n'),
  danger: {
    drop: (target, kind) => `删除${KIND[kind]}「${target}」`,
    schema: (target, kind) => `修改${KIND[kind]}「${target}」的结构`,
    'every-row': (target) => `修改「${target}」的全部行`,
    'many-rows': (target) => `修改「${target}」`,
  },
  notUnderstood: '没有勾选「我已了解」。',
  wrongTable: (typed, table) => `「${typed}」不是该语句修改的表（${table}）。`,
  severalStatements: (n) => `execute_sql 每次只执行一条语句，这段 SQL 包含 ${n} 条，请逐条发送。`,
  emptySql: 'SQL 为空',
  nulInSql:
    'SQL 中含有 NUL 字符（U+0000）。SQLite 读到它就停止，只会执行它之前的部分而忽略其余内容，因此未执行任何操作：请删除它。',
  statementTooLong: (size, bounds) =>
    `该语句执行前需要用户确认，而确认时会原样完整显示将要执行的语句：最多 ${bounds.chars} 个字符、${bounds.lines} 行。该语句有 ${size.chars} 个字符、${size.lines} 行。未执行任何操作：请拆成更短的语句发送。`,
  beyondConfirmed: (why) =>
    `未做任何修改：你确认后再次执行时，该语句${
      why.kind === 'rows'
        ? `会修改 ${codeSpan(why.table)} 中的 ${why.rows} 行，超过你确认的 ${why.allowed} 行`
        : why.kind === 'change'
          ? `会${ZH_CHANGE[why.change]} ${codeSpan(why.table)} 中的 ${why.rows} 行，而你确认的${ZH_CHANGE[why.change]}行数${why.allowed === 0 ? '为零' : `至多 ${why.allowed} 行`}`
          : why.kind === 'table'
            ? `还会修改 ${codeSpan(why.table)} 中的 ${why.rows} 行，而这并未向你展示`
            : why.kind === 'schema'
              ? `还会修改 ${codeSpan(why.name)}，而这并未向你展示`
              : '需要确认'
    }。请重新运行以查看它现在的影响。`,
  sqlTimeout: () => '已停止：该语句运行时间过长，已被终止，其所做的修改均未保留。请用 WHERE 或 LIMIT 缩小范围。',
  sqlMemory: (mib) =>
    `已停止：该语句所需内存超过了商店允许单条语句使用的 ${mib} MiB，已被终止，其所做的修改均未保留。请让它产生更小的值，或用 WHERE 或 LIMIT 缩小范围。`,
  shopBusy: '你已有语句在商店中等待或运行，请等它们完成后再发送这一条。',
  shopOutcomeUnknown:
    '商店在提交该语句时停止了，或与数据库断开了连接，因此它可能已保留，也可能没有。它没有被再次执行：请先查看数据（用 SELECT）再决定是否重新发送。',
  shopRolledBack:
    '提交该语句时与数据库的连接断开了；事后询问，数据库表示已将其回滚。它所做的修改均未保留：可以重新发送。',
  sqlError: (m, database) => `${database === 'postgres' ? 'PostgreSQL' : 'SQLite'} 拒绝了该语句：${m}`,
  refused: {
    pragma: 'execute_sql 不执行 PRAGMA 语句：连接设置由 opsdesk 管理。',
    attach: 'execute_sql 不执行 ATTACH 或 DETACH：它只操作演示商店。',
    vacuum: 'execute_sql 不执行 VACUUM（VACUUM INTO 会在别处写文件）。',
    transaction: 'execute_sql 不执行 BEGIN、COMMIT、ROLLBACK 或 SAVEPOINT：每次调用自成一个事务。',
    extension: 'execute_sql 不加载扩展。',
    'other-database':
      'execute_sql 只操作演示商店：不允许临时表、临时视图和临时触发器，也不允许读取临时数据库（opsdesk 在其中存放每次执行自己的计数对象）。',
    'virtual-table': 'execute_sql 只允许读取 json_each 和 json_tree；其他虚拟表（pragma_*、dbstat、fts）不可用。',
    explain: 'execute_sql 不执行 EXPLAIN。',
    'internal-table':
      'execute_sql 不修改 SQLite 自身的表（sqlite_sequence、sqlite_stat1、sqlite_stat4）中的行：这些表由 SQLite 自己维护，对它们的修改无法统计或展示。读取它们没有问题。',
    session:
      'execute_sql 不执行 SET、RESET、DISCARD、LISTEN、NOTIFY、COPY 或 LOAD：连接由 opsdesk 管理，每次调用只在演示商店上执行一条语句。',
    role: 'execute_sql 不修改角色（ALTER ROLE、CREATE ROLE 等）：商店的角色及其设置归 opsdesk 所有，是每条语句运行的边界。该语句所做的一切均未保留。',
    'large-object':
      'execute_sql 不创建、修改或删除大对象：它们存放在商店的表之外，无法统计或展示。该语句所做的一切均未保留。',
  },
  rowsReturned: (n, shown, stopped) =>
    stopped === 'rows'
      ? `超过 ${n} 行：读取已在此停止（显示前 ${shown} 行）。请加上 LIMIT 或 WHERE。`
      : stopped === 'bytes'
        ? `结果过大：读取在第 ${n} 行后停止（显示前 ${shown} 行）。请选择更少或更小的列。`
        : `共 ${n} 行${shown < n ? `（显示前 ${shown} 行）` : ''}。`,
  changed: (did, schema) => `完成。\n${didLines(did, schema)}`,

  resolutionTitle: '如何解决这个冲突？',
  resolution: (path, copy = `${path}.local`) => ({
    keep_local: '保留本地版本',
    keep_remote: '保留远端版本',
    keep_both: `都保留（本地版本另存为 ${copy}）`,
    manual: '两边都不动，我手动合并',
  }),
  keepBothNamedBelow: '都保留（本地版本另存为问题中列出的副本）',
  copyNamed: (copy) => `选择都保留时，本地版本将另存为 ${copy}。`,
  conflictMessage: (path, local, remote, diff) =>
    [
      `${path} 自上次同步后两边都被修改了。`,
      `本地：${local.size}，修改于 ${local.modified}。`,
      `远端：${remote.size}，修改于 ${remote.modified}。`,
      ...(diff
        ? [
            '差异（- 远端，+ 本地）：',
            '```diff',
            ...diff.lines,
            '```',
            ...(diff.more > 0 ? [`……另有 ${diff.more} 行不同`] : []),
          ]
        : ['（无法逐行比较：二进制或内容过大）']),
      '以哪个版本为准？',
    ].join('\n'),
  deleted: '已删除',
  inSync: (path) => `${path} 已是同步状态。`,
  pushed: (path) => `${path}：本地修改已同步到远端。`,
  pulled: (path) => `${path}：远端修改已同步到本地。`,
  resolved: (path, how) => `${path}：冲突已解决（${how}）。`,
  leftForManual: (path) => `${path}：两个版本都保留原样，请手动合并后再次运行 sync_file。`,
  filesChanged: (path) => `未执行：你做决定期间 ${path} 发生了变化。请重新运行 sync_file 查看当前的冲突。`,
  badPath: (path, why) => `拒绝路径「${path}」：${why}。`,
  noSuchFile: (path) => `${path} 在两边都不存在。`,

  projectTitle: '项目',
  fromTitle: '开始日期（YYYY-MM-DD）',
  toTitle: '结束日期（YYYY-MM-DD）',
  reportMessage: (missing) => `生成周报需要选择${missing}。日期范围最多 31 天。`,
  reportFields: { project: '项目', from: '开始日期', to: '结束日期' },
  badDate: (field, value) => `${field}「${value}」不是真实存在的日期（YYYY-MM-DD）。`,
  fromAfterTo: (from, to) => `开始日期（${from}）晚于结束日期（${to}）。`,
  spanTooLong: (days) => `日期范围为 ${days} 天，最多允许 31 天。`,
  noSuchProject: (project) => `没有你可以查看报告的项目「${project}」。`,
  noProjects: '你没有任何项目的查看权限。',
  report: (project, from, to, count) => `${project} 周报（${from} 至 ${to}）：共 ${count} 次部署。`,
  reportListed: (listed, total) => `（共 ${total} 次，仅列出前 ${listed} 次。）`,

  usernameTitle: '用户名',
  usernameHelp: '字母、数字、点、短横线或下划线',
  emailTitle: '邮箱',
  newsletterTitle: '订阅 opsdesk 新闻邮件',
  registerMessage: '创建 opsdesk 账号。密码将在接下来的安全页面中设置，绝不会通过此表单收集。',
  usernameTaken: (u) => `用户名「${u}」已被占用。`,
  usernameChars: '用户名只能包含字母、数字、点、短横线或下划线。',
  passwordMessage: (u) => `请在 opsdesk 安全页面为 ${u} 设置密码（链接只能使用一次，15 分钟后失效）。`,
  takenOnPage: (u) => `在页面打开期间，用户名「${u}」已被先完成的注册占用。没有创建任何账号；请换一个用户名重新注册。`,
  registered: (u) => `账号 ${u} 已创建，密码已设置。`,
  madeBeforeRefusal: (u) =>
    `未再做任何操作。在此回答之前，本次调用已创建账号 ${u}（密码已在安全页面上设置）；该账号保留。`,
  registerPending: (u) =>
    `用户已同意在 opsdesk 安全页面上为 ${u} 设置密码，但尚未完成。完成的那一刻账号即被创建（链接 15 分钟后失效），无需其他操作。请不要为此再次调用 register_user：那会开始另一次注册，而用户名 ${u} 已被这次注册占用。`,
  registerUnsupported: (step) =>
    `该客户端无法${step === 'form' ? '用表单向用户询问账号信息' : '为用户打开页面（URL 模式征询），而设置密码需要它'}，因此 register_user 没有创建账号。密码在 opsdesk 安全页面上设置，绝不经由表单或聊天，且 register_user 不接受参数：再次调用也无济于事。用户可以在同时支持表单和 URL 模式征询的客户端中注册。`,
};

/** 每个受影响的表一行，然后每个结构变化一行。 */
function didLines(did: readonly TableChange[], schema: SchemaChange): string {
  const lines = did.map((t) => {
    const parts = [
      t.deleted > 0 ? `删除 ${t.deleted} 行` : '',
      t.updated > 0 ? `更新 ${t.updated} 行` : '',
      t.inserted > 0 ? `插入 ${t.inserted} 行` : '',
    ].filter(Boolean);
    return `- ${codeSpan(t.name)}：${parts.join('，')}（原有 ${t.before} 行）`;
  });
  for (const o of schema.removed) lines.push(`- ${object(o)} 被删除`);
  for (const o of schema.added) lines.push(`- ${object(o)} 被创建`);
  for (const o of schema.altered) lines.push(`- ${object(o)} 被修改`);
  return lines.length > 0 ? lines.join('\n') : '- 没有行被修改';
}

/** 上限所涵盖的结构变化。 */
function schemaWords(schema: SchemaChange): string {
  const all = [...schema.removed, ...schema.added, ...schema.altered];
  return all.length > 0 ? `，并修改 ${all.map(object).join('、')}` : '';
}
