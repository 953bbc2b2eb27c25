/**
 * A local university-portal emulator (node:http on 127.0.0.1, a free port) that behaves like the
 * `suwon` portal the scraper is written against (PO-5): an HTML login form with a hidden CSRF token
 * tied to a pre-login session cookie, `POST /login` → 302 with a new session cookie (the cookie on a
 * redirect that plain `fetch` drops), sessions that expire after N requests or T ms (an expired
 * session's data page answers the login form with 200, as real portals do), HTML tables for the
 * profile, academic record, semester list, each semester's courses and grades, designated courses
 * and course evaluations; a wrong password answers the login page with an error. Faults (slow
 * pages, a 503 on the k-th request, a maintenance page, short sessions) are set globally or per
 * student through methods or the JSON admin API under `/__admin` (tests, demo, the REFRESH demo's
 * record change). Seeded from ./portal-seed.ts. The real portal's markup is not available here.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Semester, TakenCourse } from '../../src/domain/portal/result';
import { AREA_LABELS, EVALUATION_LABELS, NONE_LABEL, NO_GRADE_LABEL, NO_LABEL, TERM_LABELS, YES_LABEL } from '../../src/services/portal/adapters/suwon/labels';
import { SUWON_UNIVERSITY } from '../../src/domain/portal/suwon-university';
import { cloneStudent, COURSE_CATALOG, recordTotals, SEED_STUDENTS, type SeedStudent } from './portal-seed';

/** Faults and session policy, globally or for one student (a student's entries win). */
export interface PortalFaults {
  /** Every page (login included) answers the maintenance page with 200. */
  maintenance?: boolean;
  /** Delay before answering, ms. */
  slowMs?: number;
  /** Only paths starting with one of these are slow (default: all). */
  slowPaths?: string[];
  /** The `nth` request counted from when this was set answers `status` (default 503), `times` times in a row (default 1). */
  failNth?: { nth: number; status?: number; times?: number };
  /** A session expires after this many data requests. */
  sessionMaxRequests?: number;
  /** A session expires this many ms after login. */
  sessionTtlMs?: number;
}

/** Counters of what the emulator served. */
export interface PortalStats {
  logins: number;
  failedLogins: number;
  pages: number;
  expiredAnswers: number;
  faultAnswers: number;
  maintenanceAnswers: number;
  /** Requests held by a slow-page fault right now (not yet answered). */
  held: number;
  /** Portal requests (not the admin API) being answered right now, and the most at once since {@link PortalEmulator.resetPeak}. */
  inFlight: number;
  peakInFlight: number;
}

/** The running emulator. */
export interface PortalEmulator {
  /** Base URL, e.g. `http://127.0.0.1:41234` (config PORTAL_SUWON_BASE_URL). */
  url: string;
  /** A copy of a student's record, or undefined. */
  student(studentId: string): SeedStudent | undefined;
  /** Adds or replaces a student (e.g. a grade change before a REFRESH). */
  setStudent(student: SeedStudent): void;
  /** Sets faults globally, or for one student; `undefined` clears them. Restarts the failNth count. */
  setFaults(faults: PortalFaults | undefined, studentId?: string): void;
  /** Clears every fault (global and per student). */
  clearFaults(): void;
  /** Ends every session (of one student): their next data page answers the login form. */
  expireSessions(studentId?: string): void;
  stats(): PortalStats;
  /** Restarts `peakInFlight` from the requests in flight now. */
  resetPeak(): void;
  close(): Promise<void>;
}

/** Options of {@link startPortalEmulator}. */
export interface PortalEmulatorOptions {
  /** Port; 0 or absent picks a free one. */
  port?: number;
  /** Students to serve (default: the seed). */
  students?: SeedStudent[];
  /** Session policy for every session unless a fault says otherwise (default: 200 requests, 30 min). */
  sessionMaxRequests?: number;
  sessionTtlMs?: number;
}

/** Cookie name of the portal session. */
export const PORTAL_SESSION_COOKIE = 'SUWON_SID';
/** Path of the JSON admin API. */
export const PORTAL_ADMIN_PREFIX = '/__admin';

interface Session {
  id: string;
  csrf: string;
  studentId: string | null;
  loggedInAt: number;
  requests: number;
  maxRequests: number;
  ttlMs: number;
}

interface FaultState {
  faults: PortalFaults;
  counted: number;
  failedInRow: number;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const num = (n: number) => (Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100));
const TERM_KEY: Record<Semester['term'], string> = { '1': '1', '2': '2', SUMMER: 'S', WINTER: 'W' };

/** URL path segment of a semester, e.g. `2024-1`, `2022-S`. */
export function semesterKey(s: { year: number; term: Semester['term'] }): string {
  return `${s.year}-${TERM_KEY[s.term]}`;
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="ko"><head><meta charset="utf-8"><title>${esc(title)} - ${esc(SUWON_UNIVERSITY.name)} 포털</title>
<link rel="stylesheet" href="/static/portal.css"></head>
<body><header class="top"><a href="/main" class="logo">${esc(SUWON_UNIVERSITY.name)}</a></header>
<main id="content">
${body}
</main><footer>© ${esc(SUWON_UNIVERSITY.name)}</footer></body></html>`;
}

function loginPage(csrf: string, error?: { reason: string; message: string }): string {
  const err = error ? `<div class="login-error" id="loginError" data-reason="${esc(error.reason)}">${esc(error.message)}</div>` : '';
  return page(
    '로그인',
    `<section class="login">
<h1>통합로그인</h1>
${err}
<form id="loginForm" name="loginForm" method="post" action="/login">
  <input type="hidden" name="_csrf" value="${esc(csrf)}">
  <label>학번 <input type="text" name="userId" autocomplete="username"></label>
  <label>비밀번호 <input type="password" name="userPw" autocomplete="current-password"></label>
  <button type="submit">로그인</button>
</form>
</section>`,
  );
}

const MAINTENANCE_PAGE = page(
  '시스템 점검',
  `<div id="maintenance" class="maintenance"><h1>시스템 점검 안내</h1><p>보다 나은 서비스를 위해 시스템 점검 중입니다. 점검 시간 동안 포털 이용이 제한됩니다.</p></div>`,
);

function kvTable(id: string, rows: Array<[string, string]>): string {
  return `<table id="${id}" class="info">
<tbody>
${rows.map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${esc(v)}</td></tr>`).join('\n')}
</tbody></table>`;
}

function gridTable(id: string, headers: string[], rows: string[][], empty: string, caption?: string): string {
  const body =
    rows.length === 0
      ? `<tr class="empty"><td colspan="${headers.length}">${esc(empty)}</td></tr>`
      : rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n');
  return `<table id="${id}" class="grid">${caption ? `<caption>${esc(caption)}</caption>` : ''}
<thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>
${body}
</tbody></table>`;
}

function profilePage(s: SeedStudent): string {
  const p = s.profile;
  const certs = p.languageCertificates ?? [];
  return page(
    '학적정보',
    `<h1>학적정보</h1>
${kvTable('profile', [
  ['학번', p.studentId],
  ['성명', p.name],
  ['입학년도', String(p.admissionYear)],
  ['소속학과', p.department],
  ['전공', p.major],
  ['복수전공', p.doubleMajor ?? NONE_LABEL],
  ['학적상태', p.enrollmentStatus],
  ['학년', String(p.gradeLevel)],
])}
<h2>어학성적</h2>
${gridTable(
  'languageCertificates',
  ['시험종류', '점수', '등급', '취득일'],
  certs.map((c) => [esc(c.kind), c.score === null || c.score === undefined ? NONE_LABEL : num(c.score), esc(c.level ?? NONE_LABEL), esc(c.acquiredOn)]),
  '등록된 어학성적이 없습니다.',
)}`,
  );
}

function recordPage(s: SeedStudent): string {
  const t = recordTotals(s.semesters);
  return page(
    '성적총괄',
    `<h1>성적총괄</h1>
${kvTable('academicRecord', [
  ['신청학점', num(t.creditsAttempted)],
  ['취득학점', num(t.creditsEarned)],
  ['평점평균', t.gpa === null ? NONE_LABEL : t.gpa.toFixed(2)],
])}`,
  );
}

function semestersPage(s: SeedStudent): string {
  return page(
    '학기별 성적',
    `<h1>학기별 성적</h1>
${gridTable(
  'semesters',
  ['년도', '학기', '평점', '상세'],
  s.semesters.map((m) => [
    String(m.year),
    esc(TERM_LABELS[m.term]),
    m.gpa === null || m.gpa === undefined ? NONE_LABEL : m.gpa.toFixed(2),
    `<a href="/student/semesters/${semesterKey(m)}">조회</a>`,
  ]),
  '성적 내역이 없습니다.',
)}`,
  );
}

function courseRow(c: TakenCourse): string[] {
  return [
    esc(c.courseCode),
    esc(c.courseName),
    num(c.credits),
    c.creditCorrection === null || c.creditCorrection === undefined ? NONE_LABEL : num(c.creditCorrection),
    esc(c.grade ?? NO_GRADE_LABEL),
    esc(AREA_LABELS[c.area]),
    esc(c.professor ?? NONE_LABEL),
    esc(c.department ?? NONE_LABEL),
    c.retake ? YES_LABEL : NO_LABEL,
  ];
}

function semesterPage(m: Semester): string {
  return page(
    `${m.year}년 ${TERM_LABELS[m.term]} 성적`,
    `<h1>${m.year}년 ${esc(TERM_LABELS[m.term])} 성적</h1>
${gridTable(
  'courses',
  ['과목코드', '과목명', '학점', '인정학점', '성적', '이수구분', '담당교수', '개설학과', '재수강'],
  m.courses.map(courseRow),
  '수강 내역이 없습니다.',
  `${m.year}년 ${TERM_LABELS[m.term]}`,
)}`,
  );
}

function designatedPage(s: SeedStudent): string {
  if (s.designatedCourses === 'unavailable') {
    return page('지정과목', `<h1>지정과목</h1><p id="designatedUnavailable" class="notice">지정과목 정보가 제공되지 않는 학적입니다.</p>`);
  }
  return page(
    '지정과목',
    `<h1>지정과목</h1>
${gridTable(
  'designatedCourses',
  ['과목코드', '과목명', '학점', '이수구분', '개설학과'],
  s.designatedCourses.map((d) => [esc(d.courseCode), esc(d.courseName), num(d.credits), esc(AREA_LABELS[d.area]), esc(d.department ?? NONE_LABEL)]),
  '지정된 과목이 없습니다.',
)}`,
  );
}

function evaluationsPage(s: SeedStudent): string {
  const ev = s.courseEvaluations;
  if (!ev) return page('강의평가', `<h1>강의평가</h1><p id="evaluationClosed" class="notice">강의평가 기간이 아닙니다.</p>`);
  const t = ev.targetSemester;
  return page(
    '강의평가',
    `<h1>강의평가</h1>
<div id="evaluationTarget" data-year="${t.year}" data-term="${TERM_KEY[t.term]}">${t.year}년 ${esc(TERM_LABELS[t.term])} 강의평가</div>
${gridTable(
  'evaluations',
  ['과목코드', '과목명', '평가상태'],
  ev.items.map((i) => [esc(i.courseCode), esc(COURSE_CATALOG[i.courseCode]?.name ?? i.courseCode), esc(EVALUATION_LABELS[i.status])]),
  '평가 대상 과목이 없습니다.',
)}`,
  );
}

function mainPage(s: SeedStudent): string {
  return page(
    '메인',
    `<div id="welcome">${esc(s.profile.name)}님 환영합니다.</div>
<nav id="menu"><a href="/student/profile">학적정보</a> <a href="/student/record">성적총괄</a> <a href="/student/semesters">학기별 성적</a>
<a href="/student/designated-courses">지정과목</a> <a href="/student/evaluations">강의평가</a> <a href="/logout">로그아웃</a></nav>`,
  );
}

function readBody(req: IncomingMessage, limit = 1 << 20): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

// unref: a request held by a slow-page fault never keeps the test process alive after its client is gone.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Starts the emulator on 127.0.0.1. */
export async function startPortalEmulator(opts: PortalEmulatorOptions = {}): Promise<PortalEmulator> {
  const students = new Map<string, SeedStudent>((opts.students ?? Object.values(SEED_STUDENTS)).map((s) => [s.studentId, cloneStudent(s)]));
  const sessions = new Map<string, Session>();
  let global: FaultState = { faults: {}, counted: 0, failedInRow: 0 };
  const perStudent = new Map<string, FaultState>();
  const stats: PortalStats = { logins: 0, failedLogins: 0, pages: 0, expiredAnswers: 0, faultAnswers: 0, maintenanceAnswers: 0, held: 0, inFlight: 0, peakInFlight: 0 };
  const defaultMaxRequests = opts.sessionMaxRequests ?? 200;
  const defaultTtlMs = opts.sessionTtlMs ?? 30 * 60_000;

  const newSession = (studentId: string | null): Session => {
    const f = { ...global.faults, ...(studentId ? perStudent.get(studentId)?.faults : undefined) };
    const s: Session = {
      id: randomBytes(18).toString('base64url'),
      csrf: randomBytes(16).toString('hex'),
      studentId,
      loggedInAt: Date.now(),
      requests: 0,
      maxRequests: f.sessionMaxRequests ?? defaultMaxRequests,
      ttlMs: f.sessionTtlMs ?? defaultTtlMs,
    };
    sessions.set(s.id, s);
    return s;
  };

  const send = (res: ServerResponse, status: number, html: string, headers: Record<string, string | string[]> = {}) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
    res.end(html);
  };
  const sendJson = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const setCookie = (s: Session) => `${PORTAL_SESSION_COOKIE}=${s.id}; Path=/; HttpOnly; SameSite=Lax`;
  const anonLogin = (res: ServerResponse, status = 200, error?: { reason: string; message: string }) => {
    const s = newSession(null);
    send(res, status, loginPage(s.csrf, error), { 'set-cookie': setCookie(s) });
  };

  /** Applies faults for this request; true when it answered. */
  const applyFaults = async (path: string, studentId: string | null, res: ServerResponse): Promise<boolean> => {
    const states = [global, ...(studentId && perStudent.has(studentId) ? [perStudent.get(studentId)!] : [])];
    const merged: PortalFaults = Object.assign({}, ...states.map((s) => s.faults)) as PortalFaults;
    if (merged.maintenance) {
      stats.maintenanceAnswers++;
      send(res, 200, MAINTENANCE_PAGE);
      return true;
    }
    for (const st of states) {
      const f = st.faults.failNth;
      if (!f) continue;
      st.counted++;
      const times = f.times ?? 1;
      if (st.counted >= f.nth && st.failedInRow < times) {
        st.failedInRow++;
        stats.faultAnswers++;
        const status = f.status ?? 503;
        send(res, status, page('Service Unavailable', `<h1>${status} Service Unavailable</h1>`), { 'retry-after': '1' });
        return true;
      }
    }
    if (merged.slowMs && (!merged.slowPaths || merged.slowPaths.some((p) => path.startsWith(p)))) {
      stats.held++;
      try {
        await sleep(merged.slowMs);
      } finally {
        stats.held--;
      }
    }
    return false;
  };

  const handleAdmin = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const method = req.method ?? 'GET';
    const rest = path.slice(PORTAL_ADMIN_PREFIX.length);
    const parts = rest.split('/').filter(Boolean).map(decodeURIComponent);
    const body = method === 'PUT' || method === 'POST' ? await readBody(req) : '';
    const json = () => (body ? (JSON.parse(body) as unknown) : undefined);
    if (parts[0] === 'students' && parts.length === 1 && method === 'GET') {
      return sendJson(res, 200, [...students.values()].map((s) => ({ studentId: s.studentId, name: s.profile.name })));
    }
    if (parts[0] === 'students' && parts.length === 2) {
      const id = parts[1]!;
      if (method === 'GET') return students.has(id) ? sendJson(res, 200, students.get(id)) : sendJson(res, 404, { error: 'no such student' });
      if (method === 'PUT') {
        const s = json() as SeedStudent;
        if (!s || s.studentId !== id) return sendJson(res, 400, { error: 'body.studentId must match the path' });
        emulator.setStudent(s);
        return sendJson(res, 200, { ok: true });
      }
    }
    if (parts[0] === 'faults' && parts.length <= 2) {
      const id = parts[1];
      if (method === 'PUT') {
        emulator.setFaults(json() as PortalFaults, id);
        return sendJson(res, 200, { ok: true });
      }
      if (method === 'DELETE') {
        if (id) emulator.setFaults(undefined, id);
        else emulator.clearFaults();
        return sendJson(res, 200, { ok: true });
      }
    }
    if (parts[0] === 'sessions' && parts[1] === 'expire' && method === 'POST') {
      emulator.expireSessions(parts[2]);
      return sendJson(res, 200, { ok: true });
    }
    if (parts[0] === 'stats' && method === 'GET') return sendJson(res, 200, stats);
    return sendJson(res, 404, { error: 'unknown admin route' });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://portal.local');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (path.startsWith(PORTAL_ADMIN_PREFIX)) return handleAdmin(req, res, path);
    if (path === '/static/portal.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end('body{font-family:sans-serif}');
      return;
    }

    const sid = cookieOf(req, PORTAL_SESSION_COOKIE);
    const session = sid ? sessions.get(sid) : undefined;

    if (path === '/' || (path === '/login' && method === 'GET')) {
      if (await applyFaults(path, null, res)) return;
      return anonLogin(res);
    }
    if (path === '/login' && method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      const userId = form.get('userId') ?? '';
      if (await applyFaults(path, userId || null, res)) return;
      if (!session || session.studentId !== null || form.get('_csrf') !== session.csrf) {
        if (session) sessions.delete(session.id);
        return anonLogin(res, 200, { reason: 'session', message: '로그인 정보가 만료되었습니다. 다시 로그인해 주세요.' });
      }
      sessions.delete(session.id);
      const student = students.get(userId);
      if (!student || student.password !== (form.get('userPw') ?? '')) {
        stats.failedLogins++;
        return anonLogin(res, 200, { reason: 'credentials', message: '학번 또는 비밀번호가 일치하지 않습니다.' });
      }
      stats.logins++;
      const s = newSession(student.studentId);
      res.writeHead(302, { location: '/main', 'set-cookie': setCookie(s), 'cache-control': 'no-store' });
      res.end();
      return;
    }
    if (path === '/logout') {
      if (session) sessions.delete(session.id);
      res.writeHead(302, { location: '/login' });
      res.end();
      return;
    }

    const studentId = session?.studentId ?? null;
    if (await applyFaults(path, studentId, res)) return;
    const student = studentId ? students.get(studentId) : undefined;
    const expired =
      !session || !student || session.requests >= session.maxRequests || Date.now() - session.loggedInAt > session.ttlMs;
    if (expired) {
      if (session) sessions.delete(session.id);
      stats.expiredAnswers++;
      return anonLogin(res); // silently: the login form with 200, as the real portal answers
    }
    session.requests++;
    stats.pages++;

    if (path === '/main') return send(res, 200, mainPage(student));
    if (path === '/student/profile') return send(res, 200, profilePage(student));
    if (path === '/student/record') return send(res, 200, recordPage(student));
    if (path === '/student/semesters') return send(res, 200, semestersPage(student));
    const m = /^\/student\/semesters\/([0-9]{4}-[12SW])$/.exec(path);
    if (m) {
      const sem = student.semesters.find((x) => semesterKey(x) === m[1]);
      if (sem) return send(res, 200, semesterPage(sem));
    }
    if (path === '/student/designated-courses') return send(res, 200, designatedPage(student));
    if (path === '/student/evaluations') return send(res, 200, evaluationsPage(student));
    return send(res, 404, page('페이지를 찾을 수 없습니다', '<h1>404</h1><p>요청하신 페이지를 찾을 수 없습니다.</p>'));
  };

  const server = createServer((req, res) => {
    const counted = !(req.url ?? '').startsWith(PORTAL_ADMIN_PREFIX);
    if (counted) {
      stats.inFlight++;
      stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
      res.once('close', () => stats.inFlight--);
    }
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, page('오류', `<h1>500</h1><pre>${esc(String(err))}</pre>`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const emulator: PortalEmulator = {
    url: `http://127.0.0.1:${port}`,
    student: (id) => {
      const s = students.get(id);
      return s ? cloneStudent(s) : undefined;
    },
    setStudent: (s) => {
      students.set(s.studentId, cloneStudent(s));
    },
    setFaults: (faults, studentId) => {
      const state: FaultState = { faults: faults ?? {}, counted: 0, failedInRow: 0 };
      if (studentId === undefined) global = state;
      else if (faults === undefined) perStudent.delete(studentId);
      else perStudent.set(studentId, state);
    },
    clearFaults: () => {
      global = { faults: {}, counted: 0, failedInRow: 0 };
      perStudent.clear();
    },
    expireSessions: (studentId) => {
      for (const [id, s] of sessions) if (s.studentId !== null && (studentId === undefined || s.studentId === studentId)) sessions.delete(id);
    },
    stats: () => ({ ...stats }),
    resetPeak: () => {
      stats.peakInFlight = stats.inFlight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
  return emulator;
}
