/**
 * Every string the widget shows or announces, screen-reader text included, in the
 * languages it ships. A host adds or overrides a language with `registerLocale`.
 */
import type { AppWords } from './app-words.js';
import type { ElicitationWords } from './elicitation-words.js';

export interface Strings {
  /** The chat's name: the launcher panel's heading (the `chat-title` attribute overrides it). */
  title: string;
  /** Launcher mode: the panel's close button, and what the button adds after an unseen answer. */
  close: string;
  unread: string;
  /** The group of starter prompts shown while the conversation is empty. */
  starters: string;
  /** The actions under an answer, and the optional comment after a thumb. */
  copyAnswer: string;
  goodAnswer: string;
  badAnswer: string;
  feedbackComment: string;
  feedbackThanks: string;
  /** A new answer to the last question; the last question edited; versions of an exchange. */
  regenerate: string;
  edit: string;
  saveAndSend: string;
  cancel: string;
  versions: string;
  previousVersion: string;
  nextVersion: string;
  /** The visitor's conversation list. */
  conversations: string;
  newConversation: string;
  noConversations: string;
  untitled: string;
  back: string;
  save: string;
  rename: (title: string) => string;
  deleteConversation: (title: string) => string;
  confirmDelete: string;
  /** Images a visitor attaches to a question (the server's `uploads`). */
  attachImages: string;
  attachments: string;
  removeImage: (name: string) => string;
  uploading: string;
  uploadFailed: string;
  /** A file refused before upload: not an image by its content, too large, one too many. */
  notAnImage: (name: string) => string;
  imageTooBig: (name: string, megabytes: string) => string;
  tooManyImages: (max: number) => string;
  /** Send waits for uploads; a failed one must be removed first. */
  waitForUploads: string;
  removeFailedUploads: string;
  /** The upload ticket expired (a page open for many hours): a reconnect gives a new one. */
  uploadExpired: string;
  /** The alt text of an attached image in a question: "Image 1 of 2". */
  attachedImage: (index: number, count: number) => string;
  /** Said where files are dragged over the composer. */
  dropImages: string;
  transcriptLabel: string;
  composerLabel: string;
  composerPlaceholder: string;
  send: string;
  stop: string;
  /** The stop button after Stop, until the turn has ended (a reconnect may have to say it again). */
  stopping: string;
  jumpToLatest: string;
  reasoning: string;
  reasoningFor: (seconds: string) => string;
  generating: string;
  chars: (count: number) => string;
  waitingForModel: string;
  toolRunning: string;
  toolDone: string;
  toolError: string;
  /**
   * A call of unknown outcome: the server running it stopped while it ran, so it may
   * have completed (neither done nor failed).
   */
  toolUnknown: string;
  toolArguments: string;
  toolResult: string;
  toolErrorLabel: string;
  /** A call the user declined, and one no one approved before its request expired. */
  toolDeclined: string;
  toolExpired: string;
  /** An image in a tool's result: its alt text, and the note for one not shown ("image/svg+xml not shown"). */
  toolImage: (name: string) => string;
  toolImageHidden: (type: string) => string;
  /** An approval card's title, also announced: "get_weather asks for approval". */
  approvalAsk: (name: string) => string;
  approve: string;
  deny: string;
  /** Approves and allows the tool for the rest of the conversation. */
  allowSession: string;
  /** Whole minutes left to decide; 0 in the last minute. */
  expiresIn: (minutes: number) => string;
  /** Who asks for the visitor's input in a tool's card, before the MCP server's words: "everything asks:". */
  elicitationAsk: (server: string) => string;
  /**
   * The rest of an elicitation's words (Submit, Decline, Open, the fields' problems): a
   * locale's language picks English or Chinese, and these override them.
   */
  elicitation?: Partial<ElicitationWords>;
  copy: string;
  copied: string;
  /** Names a table wider than its bubble, a region that scrolls sideways (by keyboard too). */
  wideTable: string;
  typing: string;
  connecting: string;
  reconnecting: (seconds: number) => string;
  offline: string;
  retryNow: string;
  /** Sent from the text box while not connected: the text stays in it. */
  notConnected: string;
  /** Sent with `send()` while not connected: nothing was kept anywhere. */
  notSent: string;
  /** Sent while the server refuses this page for good: it will never connect. */
  cannotSend: string;
  tooLong: (count: number, limit: number) => string;
  interrupted: string;
  stopped: string;
  failed: string;
  loadOlder: string;
  announceReply: (text: string) => string;
  /** A person instead of the model (`handoff`): the button; the line while asked for, answering, after. */
  talkToPerson: string;
  handoffWaiting: string;
  handoffActive: (name: string) => string;
  handoffEnded: string;
  /** A person the site left unnamed, and their reply read out. */
  operator: string;
  announceOperator: (name: string, text: string) => string;
  announceTool: (name: string) => string;
  errorTitle: string;
  /** Follows an error's words when the server gave it an id, so a visitor can quote it. */
  errorId: (id: string) => string;
  /** After an error that says when to try again (`rate_limited`). */
  retryIn: (seconds: number) => string;
  /** The same when it is a minute or more away (a budget): "Try again in 23 min." */
  retryInMinutes: (minutes: number) => string;
  /**
   * What ran out, by the `limit` of a `quota_exceeded` or `overloaded` error (a limit
   * missing here falls back to the code's words).
   */
  limits: Record<string, string>;
  /**
   * The widget's own words for the server's error codes (PROTOCOL.md, section 2); a code
   * missing here shows the server's message.
   */
  errors: Record<string, string>;
  /** `shutting_down` for a message that was never accepted (no answer was stopped). */
  restarting: string;
  /** The turn status line; `seconds` 0 says no number. */
  turnWaiting: (seconds: number) => string;
  turnRetrying: (seconds: number, attempt?: number) => string;
  turnSaving: (seconds: number, attempt?: number) => string;
  turnUnresponsive: (seconds: number) => string;
  originRefused: string;
  /**
   * The line of the bot check an anonymous visitor may be asked to pass before its first
   * message (`challenge_required`), and the one when the provider's script did not load.
   * After a token that did not pass, it says `errors.challenge_failed`.
   */
  challengeAsk: string;
  challengeUnavailable: string;
  /**
   * An MCP App's words (its frame's name, the question before a link it asks to open): a
   * locale's language picks English or Chinese, and these override them.
   */
  apps?: Partial<AppWords>;
}

/** Minutes as hours and minutes: "23 min", "5 h 12 min", "2 h". */
const span = (m: number, hours: string, minutes: string): string =>
  m < 60 ? `${m} ${minutes}` : `${Math.floor(m / 60)} ${hours}${m % 60 ? ` ${m % 60} ${minutes}` : ''}`;

const en: Strings = {
  title: 'Chat',
  close: 'Close',
  unread: 'new answer',
  starters: 'Suggestions',
  copyAnswer: 'Copy answer',
  goodAnswer: 'Good answer',
  badAnswer: 'Bad answer',
  feedbackComment: 'Tell us more (optional)',
  feedbackThanks: 'Thanks for your feedback.',
  regenerate: 'Regenerate',
  edit: 'Edit',
  saveAndSend: 'Save and send',
  cancel: 'Cancel',
  versions: 'Versions',
  previousVersion: 'Previous version',
  nextVersion: 'Next version',
  conversations: 'Conversations',
  newConversation: 'New conversation',
  noConversations: 'No conversations yet.',
  untitled: 'Untitled',
  back: 'Back',
  save: 'Save',
  rename: (t) => `Rename ${t}`,
  deleteConversation: (t) => `Delete ${t}`,
  confirmDelete: 'Delete?',
  attachImages: 'Attach images',
  attachments: 'Attached images',
  removeImage: (name) => `Remove ${name}`,
  uploading: 'Uploading…',
  uploadFailed: 'Upload failed',
  notAnImage: (name) => `${name} is not a PNG, JPEG, WebP or GIF image.`,
  imageTooBig: (name, mb) => `${name} is too large: images may be at most ${mb} MB.`,
  tooManyImages: (max) => `At most ${max} images can go with one message.`,
  waitForUploads: 'Wait for the images to finish uploading.',
  removeFailedUploads: 'An image could not be uploaded: remove it to send.',
  uploadExpired: 'This page has been open too long to attach images: reconnecting will fix it.',
  attachedImage: (index, count) => (count > 1 ? `Attached image ${index} of ${count}` : 'Attached image'),
  dropImages: 'Drop images to attach them',
  transcriptLabel: 'Conversation',
  composerLabel: 'Message',
  composerPlaceholder: 'Ask anything…',
  send: 'Send',
  stop: 'Stop',
  stopping: 'Stopping…',
  jumpToLatest: 'Jump to latest',
  reasoning: 'Reasoning',
  reasoningFor: (s) => `Reasoned for ${s}s`,
  generating: 'Generating…',
  chars: (n) => `${n} chars`,
  waitingForModel: 'waiting for the model',
  toolRunning: 'running',
  toolDone: 'done',
  toolError: 'failed',
  toolUnknown: 'may have completed',
  toolArguments: 'Arguments',
  toolResult: 'Result',
  toolErrorLabel: 'Error',
  toolDeclined: 'declined',
  toolExpired: 'not approved in time',
  toolImage: (name) => `Image from ${name}`,
  toolImageHidden: (type) => `${type} not shown`,
  approvalAsk: (name) => `${name} asks for approval`,
  approve: 'Approve',
  deny: 'Deny',
  allowSession: 'Allow for this conversation',
  expiresIn: (m) => (m ? `Expires in ${m} min` : 'Expires in less than a minute'),
  elicitationAsk: (server) => `${server} asks:`,
  copy: 'Copy',
  copied: 'Copied',
  wideTable: 'Table, scrolls sideways',
  typing: 'The assistant is writing',
  connecting: 'Connecting…',
  reconnecting: (s) => `Reconnecting in ${s}s…`,
  offline: 'Offline',
  retryNow: 'Retry now',
  notConnected: 'Not connected: your message was kept, send it again once connected.',
  notSent: 'Not connected: the message was not sent.',
  cannotSend: 'This page cannot use this chat, so messages cannot be sent.',
  tooLong: (n, limit) => `${n} / ${limit}`,
  interrupted: 'This answer was interrupted.',
  stopped: 'Stopped.',
  failed: 'The answer failed.',
  loadOlder: 'Load older messages',
  announceReply: (t) => `Assistant replied: ${t}`,
  talkToPerson: 'Talk to a person',
  handoffWaiting: 'A person will join this conversation soon.',
  handoffActive: (name) => `You are talking with ${name}.`,
  handoffEnded: 'You are back with the assistant.',
  operator: 'Support',
  announceOperator: (name, t) => `${name} replied: ${t}`,
  announceTool: (name) => `Running tool ${name}`,
  errorTitle: 'Error',
  errorId: (id) => ` (error ID ${id})`,
  retryIn: (s) => ` Try again in ${s} s.`,
  retryInMinutes: (m) => ` Try again in ${span(m, 'h', 'min')}.`,
  limits: {
    visitor_turns: "You have reached this chat's limit of messages per hour.",
    visitor_tokens: "You have reached this chat's daily limit for answers.",
    server_tokens: 'This chat has used all its answers for today.',
    concurrent_turns: 'The assistant is answering too many people right now: try again in a moment.',
  },
  errors: {
    bad_frame: 'The server did not understand this request.',
    unknown_type: 'The server did not understand this request.',
    busy: 'Still answering: wait for it, or stop it.',
    rate_limited: 'Too many messages: wait a moment.',
    upstream: 'The model service failed: try again later.',
    tool: 'A tool failed and ended this answer.',
    too_large: 'This answer grew too long and was stopped.',
    max_rounds: 'Too many tool steps: this answer was stopped.',
    storage: 'The server could not save this message.',
    interrupted: 'The server stopped before this answer was finished.',
    unavailable: 'The assistant cannot start an answer right now: send again in a moment.',
    shutting_down: 'The server restarted and stopped this answer.',
    internal: 'Something went wrong on the server.',
    quota_exceeded: "You have reached this chat's limit.",
    overloaded: 'The assistant is too busy right now.',
    images_unsupported: 'These images cannot be sent: attach them again, or send without them.',
    paused: 'The chat is paused for a moment. Your message is kept — send it again a little later.',
    challenge_required: 'A quick check is needed before your message can be sent.',
    challenge_failed: 'That check did not pass — please try again.',
    invalid_answer: 'This answer does not fit the form.',
    not_pending: 'This request is no longer open.',
  },
  restarting: 'The server is restarting: send again in a moment.',
  turnWaiting: (s) => `Waiting for the model…${s ? ` ${s} s` : ''}`,
  turnRetrying: (s, attempt) =>
    `The model service is busy: trying again ${s ? `in ${s} s` : 'now'}${attempt ? ` (attempt ${attempt})` : ''}`,
  turnSaving: (s, attempt) =>
    `Saving the answer: trying again ${s ? `in ${s} s` : 'now'}${attempt ? ` (attempt ${attempt})` : ''}`,
  turnUnresponsive: (s) => `The server running this answer is not responding…${s ? ` ${s} s` : ''}`,
  originRefused:
    "the chat server does not allow this page's address (ask its owner to add it to AALIS_ALLOWED_ORIGINS).",
  challengeAsk: 'A quick check first: your message is sent as soon as it passes.',
  challengeUnavailable: 'The check could not be loaded: send again to retry.',
};

const zhCN: Strings = {
  title: '聊天',
  close: '关闭',
  unread: '有新回答',
  starters: '建议',
  copyAnswer: '复制回答',
  goodAnswer: '好回答',
  badAnswer: '不好的回答',
  feedbackComment: '补充说明（可选）',
  feedbackThanks: '感谢您的反馈。',
  regenerate: '重新生成',
  edit: '编辑',
  saveAndSend: '保存并发送',
  cancel: '取消',
  versions: '版本',
  previousVersion: '上一个版本',
  nextVersion: '下一个版本',
  conversations: '对话列表',
  newConversation: '新对话',
  noConversations: '还没有对话。',
  untitled: '未命名',
  back: '返回',
  save: '保存',
  rename: (t) => `重命名 ${t}`,
  deleteConversation: (t) => `删除 ${t}`,
  confirmDelete: '确定删除？',
  attachImages: '添加图片',
  attachments: '已添加的图片',
  removeImage: (name) => `移除 ${name}`,
  uploading: '正在上传…',
  uploadFailed: '上传失败',
  notAnImage: (name) => `${name} 不是 PNG、JPEG、WebP 或 GIF 图片。`,
  imageTooBig: (name, mb) => `${name} 太大：图片最大为 ${mb} MB。`,
  tooManyImages: (max) => `一条消息最多可附 ${max} 张图片。`,
  waitForUploads: '请等待图片上传完成。',
  removeFailedUploads: '有图片上传失败：移除后才能发送。',
  uploadExpired: '此页面打开时间过长，无法添加图片：重新连接即可。',
  attachedImage: (index, count) => (count > 1 ? `附图 ${index}/${count}` : '附图'),
  dropImages: '松开以添加图片',
  transcriptLabel: '对话',
  composerLabel: '消息',
  composerPlaceholder: '问点什么…',
  send: '发送',
  stop: '停止',
  stopping: '正在停止…',
  jumpToLatest: '跳到最新',
  reasoning: '推理',
  reasoningFor: (s) => `推理了 ${s} 秒`,
  generating: '生成中…',
  chars: (n) => `${n} 字符`,
  waitingForModel: '等待模型',
  toolRunning: '运行中',
  toolDone: '完成',
  toolError: '失败',
  toolUnknown: '可能已完成',
  toolArguments: '参数',
  toolResult: '结果',
  toolErrorLabel: '错误',
  toolDeclined: '已拒绝',
  toolExpired: '未及时批准',
  toolImage: (name) => `来自 ${name} 的图片`,
  toolImageHidden: (type) => `${type} 未显示`,
  approvalAsk: (name) => `${name} 请求批准`,
  approve: '批准',
  deny: '拒绝',
  allowSession: '在本次对话中允许',
  expiresIn: (m) => (m ? `${m} 分钟后过期` : '不到 1 分钟后过期'),
  elicitationAsk: (server) => `${server} 询问：`,
  copy: '复制',
  copied: '已复制',
  wideTable: '表格，可横向滚动',
  typing: '助手正在输入',
  connecting: '连接中…',
  reconnecting: (s) => `${s} 秒后重新连接…`,
  offline: '离线',
  retryNow: '立即重试',
  notConnected: '未连接：消息已保留，连接后请重新发送。',
  notSent: '未连接：消息未发送。',
  cannotSend: '此页面无法使用这个聊天，消息无法发送。',
  tooLong: (n, limit) => `${n} / ${limit}`,
  interrupted: '这条回答被中断了。',
  stopped: '已停止。',
  failed: '回答失败。',
  loadOlder: '加载更早的消息',
  announceReply: (t) => `助手回复：${t}`,
  talkToPerson: '转人工客服',
  handoffWaiting: '工作人员很快会加入对话。',
  handoffActive: (name) => `您正在与 ${name} 对话。`,
  handoffEnded: '现在由助手继续回答。',
  operator: '客服',
  announceOperator: (name, t) => `${name} 回复：${t}`,
  announceTool: (name) => `正在运行工具 ${name}`,
  errorTitle: '错误',
  errorId: (id) => `（错误 ID：${id}）`,
  retryIn: (s) => `（${s} 秒后再试）`,
  retryInMinutes: (m) => `（${span(m, '小时', '分钟')}后再试）`,
  limits: {
    visitor_turns: '您已达到本聊天每小时的消息上限。',
    visitor_tokens: '您已达到本聊天今天的回答上限。',
    server_tokens: '本聊天今天的回答额度已用完。',
    concurrent_turns: '助手正在同时回答太多人：请稍后再试。',
  },
  errors: {
    bad_frame: '服务器无法理解这个请求。',
    unknown_type: '服务器无法理解这个请求。',
    busy: '回答仍在生成：请等待或停止。',
    rate_limited: '消息太多：请稍等片刻。',
    upstream: '模型服务出错：请稍后再试。',
    tool: '工具出错，回答已结束。',
    too_large: '回答过长，已被停止。',
    max_rounds: '工具步骤过多，回答已被停止。',
    storage: '服务器无法保存这条消息。',
    interrupted: '服务器在回答完成前停止了。',
    unavailable: '助手暂时无法开始回答：请稍后再发送。',
    shutting_down: '服务器已重启，这条回答被中止。',
    internal: '服务器出了点问题。',
    quota_exceeded: '您已达到本聊天的使用上限。',
    overloaded: '助手现在太忙了。',
    images_unsupported: '无法发送这些图片：请重新添加，或不带图片发送。',
    paused: '聊天暂时暂停了。您的消息已保留——请稍后再发送。',
    challenge_required: '发送消息前需要完成一个快速验证。',
    challenge_failed: '验证未通过——请再试一次。',
    invalid_answer: '此回答不符合表单要求。',
    not_pending: '此请求已不再等待回答。',
  },
  restarting: '服务器正在重启：请稍后再发送。',
  turnWaiting: (s) => `正在等待模型…${s ? ` ${s} 秒` : ''}`,
  turnRetrying: (s, attempt) =>
    `模型服务繁忙：${s ? `${s} 秒后` : '马上'}重试${attempt ? `（第 ${attempt} 次）` : ''}`,
  turnSaving: (s, attempt) =>
    `正在保存回答：${s ? `${s} 秒后` : '马上'}重试${attempt ? `（第 ${attempt} 次）` : ''}`,
  turnUnresponsive: (s) => `运行此回答的服务器没有响应…${s ? ` ${s} 秒` : ''}`,
  originRefused: '聊天服务器不允许此页面的地址（请其管理员将它加入 AALIS_ALLOWED_ORIGINS）。',
  challengeAsk: '请先完成快速验证：通过后消息会自动发送。',
  challengeUnavailable: '验证无法加载：请重新发送以重试。',
};

const locales = new Map<string, Strings>([
  ['en', en],
  ['zh-CN', zhCN],
]);

/** Adds a language, or overrides strings of one; missing strings fall back to English. */
export function registerLocale(code: string, strings: Partial<Strings>): void {
  const before = locales.get(code);
  // The error words merge too: a locale that words one code keeps English for the rest.
  const errors = { ...en.errors, ...before?.errors, ...strings.errors };
  const limits = { ...en.limits, ...before?.limits, ...strings.limits };
  locales.set(code, { ...en, ...before, ...strings, errors, limits });
}

/** The words for an error: the locale's for a code it knows, else the server's; then its id. */
export function errorText(
  strings: Strings,
  error: { code: string; message: string; errorId?: string; retryInMs?: number; limit?: string },
): string {
  // Own keys only: a code such as `constructor` must not reach Object.prototype.
  const known = Object.hasOwn(strings.errors, error.code);
  // A budget says which one ran out (`limit`), in the locale's words when it has them.
  const limit =
    error.limit !== undefined && Object.hasOwn(strings.limits, error.limit) ? error.limit : undefined;
  const words = limit ? strings.limits[limit] : known ? strings.errors[error.code] : error.message;
  // The server's own message already says when, in English; the locale's words do not.
  const ms = (known || limit) && error.retryInMs;
  const when = !ms
    ? ''
    : ms < 60_000
      ? strings.retryIn(Math.ceil(ms / 1000))
      : strings.retryInMinutes(Math.ceil(ms / 60_000));
  return words + when + (error.errorId ? strings.errorId(error.errorId) : '');
}

/** The strings for a BCP 47 tag: exact match, then the language alone (`zh-TW` -> `zh-CN` for `zh`), then English. */
export function stringsFor(tag: string | undefined): Strings {
  if (!tag) return en;
  const exact = locales.get(tag);
  if (exact) return exact;
  const language = tag.split('-')[0]!.toLowerCase();
  for (const [code, strings] of locales) if (code.split('-')[0]!.toLowerCase() === language) return strings;
  return en;
}

export const defaultLocale = (): string =>
  typeof navigator === 'undefined' ? 'en' : navigator.language || 'en';
