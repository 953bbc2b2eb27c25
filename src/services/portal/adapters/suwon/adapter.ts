/**
 * PO-5 the `suwon` portal adapter: form login (hidden CSRF token, session cookie set on the 302 —
 * kept by fetch-cookie + tough-cookie, which plain `fetch` with redirect "follow" would drop), then
 * the profile, academic record, semester list, each semester's courses, designated courses and
 * course evaluations, parsed from HTML tables with cheerio by header text (column order may change).
 * After the login the data pages go out together, at most `pageConcurrency` of one scrape and
 * `maxRequestsInFlight` of all this adapter's scrapes at once (the portal's politeness bound); the
 * first failure of any page stops the others (a {@link PageGroup}), so an outage or a markup error
 * costs one failure, not one per page.
 * A data page that answers the login form (the portal's silent session expiry) triggers one fresh
 * login — one for the whole scrape, however many pages saw the session end, and no page goes out
 * while it runs — and a re-read; a page sent with the fresh session that answers the login form
 * again is {@link PortalSessionExpiredError} — never a student with zero courses. The result is validated against the result schema before it is returned: a page
 * that parses into something invalid is unexpected markup. Written against the portal emulator
 * (test/support/portal-emulator.ts); the real portal's markup is not available here.
 */
import { load, type CheerioAPI } from 'cheerio';
import fetchCookie from 'fetch-cookie';
import { CookieJar } from 'tough-cookie';
import {
  ScrapeResultSchema,
  SCRAPE_RESULT_SCHEMA_VERSION,
  type CourseArea,
  type DesignatedCourse,
  type EvaluationStatus,
  type LanguageCertificate,
  type ScrapeResultInput,
  type Semester,
  type SemesterRef,
  type TakenCourse,
  type Term,
} from '../../../../domain/portal/result';
import {
  PortalCredentialsInvalidError,
  PortalMarkupUnexpectedError,
  PortalSessionExpiredError,
  PortalUnavailableError,
  type PortalAdapter,
  type PortalCredentials,
  type ScrapeContext,
} from '../types';
import { createLimiter, PageGroup } from '../concurrency';
import { AREA_LABELS, EVALUATION_LABELS, invert, NONE_LABEL, NO_GRADE_LABEL, NO_LABEL, TERM_LABELS, YES_LABEL } from './labels';

/** Options of {@link createSuwonAdapter}. */
export interface SuwonAdapterOptions {
  /** Portal base URL (config PORTAL_SUWON_BASE_URL), no trailing slash. */
  baseUrl: string;
  /** Per-request timeout, ms (config PORTAL_REQUEST_TIMEOUT_MS): a slower page is an outage. */
  requestTimeoutMs: number;
  /** The fetch to wrap with the cookie jar (default: the global one). */
  fetch?: typeof fetch;
  /** Data pages one scrape reads at once after its login (config PORTAL_PAGE_CONCURRENCY; 1: one after another). */
  pageConcurrency?: number;
  /** Requests to the portal in flight at once over every scrape of this adapter (config PORTAL_MAX_REQUESTS_IN_FLIGHT). */
  maxRequestsInFlight?: number;
}

/** Default of {@link SuwonAdapterOptions.pageConcurrency}. */
export const DEFAULT_PAGE_CONCURRENCY = 4;
/** Default of {@link SuwonAdapterOptions.maxRequestsInFlight}. */
export const DEFAULT_MAX_REQUESTS_IN_FLIGHT = 16;

const AREAS = invert<CourseArea>(AREA_LABELS);
const TERMS = invert<Term>(TERM_LABELS);
const EVALUATIONS = invert<EvaluationStatus>(EVALUATION_LABELS);
const TERM_KEYS: Readonly<Record<string, Term>> = { '1': '1', '2': '2', S: 'SUMMER', W: 'WINTER' };
const GRADES = new Set(['A+', 'A0', 'A-', 'B+', 'B0', 'B-', 'C+', 'C0', 'C-', 'D+', 'D0', 'D-', 'F', 'P', 'NP', 'W']);
/** Upper bound of semester pages one scrape reads (a runaway list is unexpected markup). */
const MAX_SEMESTERS = 40;

/** Thrown inside the adapter when a data page answered the login form. */
class LoginPageAnswered extends Error {}

const text = ($: CheerioAPI, el: Parameters<CheerioAPI>[0]) => $(el).text().replace(/\s+/g, ' ').trim();

function markup(message: string): PortalMarkupUnexpectedError {
  return new PortalMarkupUnexpectedError(`suwon portal: ${message}`);
}

function isLoginPage($: CheerioAPI): boolean {
  return $('form input[type="password"]').length > 0;
}

/** th → td text of a key/value table; throws when the table is missing. */
function kvTable($: CheerioAPI, id: string, page: string): Map<string, string> {
  const table = $(`table#${id}`);
  if (table.length !== 1) throw markup(`${page}: table #${id} not found`);
  const out = new Map<string, string>();
  table.find('tr').each((_i, tr) => {
    const th = $(tr).find('th').first();
    const td = $(tr).find('td').first();
    if (th.length && td.length) out.set(text($, th), text($, td));
  });
  return out;
}

/** Rows of a grid table as header → cell text; `required` headers must exist; empty-marker rows skipped. */
function gridTable($: CheerioAPI, id: string, required: readonly string[], page: string): Array<Map<string, string>> {
  const table = $(`table#${id}`);
  if (table.length !== 1) throw markup(`${page}: table #${id} not found`);
  const headers = table.find('thead th').map((_i, th) => text($, th)).get();
  for (const h of required) if (!headers.includes(h)) throw markup(`${page}: table #${id} has no column "${h}" (columns: ${headers.join(', ')})`);
  const rows: Array<Map<string, string>> = [];
  table.find('tbody tr').each((_i, tr) => {
    if ($(tr).hasClass('empty')) return;
    const cells = $(tr).find('td').map((_j, td) => text($, td)).get();
    if (cells.length !== headers.length) throw markup(`${page}: a row of #${id} has ${cells.length} cells for ${headers.length} columns`);
    rows.push(new Map(headers.map((h, j) => [h, cells[j]!])));
  });
  return rows;
}

function field(map: Map<string, string>, key: string, page: string): string {
  const v = map.get(key);
  if (v === undefined || v === '') throw markup(`${page}: "${key}" missing`);
  return v;
}

function optional(v: string): string | null {
  return v === NONE_LABEL || v === '' ? null : v;
}

function number(v: string, what: string): number {
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(v)) throw markup(`${what}: "${v}" is not a number`);
  return Number(v);
}

function optionalNumber(v: string, what: string): number | null {
  const o = optional(v);
  return o === null ? null : number(o, what);
}

function lookup<K>(table: ReadonlyMap<string, K>, label: string, what: string): K {
  const v = table.get(label);
  if (v === undefined) throw markup(`${what}: unknown label "${label}"`);
  return v;
}

/** The courses table of one semester page. */
function coursesOf($sem: CheerioAPI, page: string): TakenCourse[] {
  return gridTable($sem, 'courses', ['과목코드', '과목명', '학점', '인정학점', '성적', '이수구분', '담당교수', '개설학과', '재수강'], page).map((c) => {
    const gradeText = field(c, '성적', 'course');
    if (gradeText !== NO_GRADE_LABEL && !GRADES.has(gradeText)) throw markup(`course grade "${gradeText}" unknown`);
    const retake = field(c, '재수강', 'course');
    if (retake !== YES_LABEL && retake !== NO_LABEL) throw markup(`retake flag "${retake}" unknown`);
    return {
      courseCode: field(c, '과목코드', 'course'),
      courseName: field(c, '과목명', 'course'),
      credits: number(field(c, '학점', 'course'), 'course credits'),
      creditCorrection: optionalNumber(field(c, '인정학점', 'course'), 'credit correction'),
      grade: gradeText === NO_GRADE_LABEL ? null : (gradeText as TakenCourse['grade']),
      area: lookup(AREAS, field(c, '이수구분', 'course'), 'course area'),
      professor: optional(field(c, '담당교수', 'course')),
      department: optional(field(c, '개설학과', 'course')),
      retake: retake === YES_LABEL,
    };
  });
}

/** Creates the `suwon` adapter. */
export function createSuwonAdapter(opts: SuwonAdapterOptions): PortalAdapter {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const baseFetch = opts.fetch ?? fetch;
  const pageConcurrency = opts.pageConcurrency ?? DEFAULT_PAGE_CONCURRENCY;
  // One cap for every scrape of this adapter (one per portal type and worker process).
  const portalSlots = createLimiter(opts.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_IN_FLIGHT);

  async function scrape(credentials: PortalCredentials, ctx: ScrapeContext = {}): Promise<ScrapeResultInput> {
    const scrapedAt = new Date().toISOString();
    const jar = new CookieJar();
    const http = fetchCookie(baseFetch, jar);
    let pages = 0;

    const pageSlots = createLimiter(pageConcurrency);
    const group = new PageGroup(ctx.signal);

    /** One request within the portal's cap; `scope` aborts it (the caller's signal, or the page group's). */
    const request = async (path: string, init: RequestInit = {}, scope: AbortSignal | undefined = ctx.signal): Promise<CheerioAPI> => {
      scope?.throwIfAborted();
      let timedOut = false;
      let res: Response;
      let body: string;
      try {
        ({ res, body } = await portalSlots.run(async () => {
          // The request timeout runs from the moment the request goes out, not while it waits for the cap.
          const timeout = AbortSignal.timeout(opts.requestTimeoutMs);
          const signal = scope ? AbortSignal.any([scope, timeout]) : timeout;
          try {
            const r = await http(`${base}${path}`, { ...init, redirect: 'follow', signal });
            return { res: r, body: await r.text() };
          } catch (err) {
            timedOut = timeout.aborted;
            throw err;
          }
        }, scope));
      } catch (err) {
        if (scope?.aborted) throw scope.reason ?? err;
        throw new PortalUnavailableError(
          timedOut ? `suwon portal: ${path} took longer than ${opts.requestTimeoutMs} ms` : `suwon portal: ${path} unreachable: ${(err as Error).message}`,
          {},
          { cause: err },
        );
      }
      pages++;
      ctx.heartbeat?.({ page: path, pages });
      if (res.status >= 500 || res.status === 429) {
        const retryAfter = Number(res.headers.get('retry-after'));
        throw new PortalUnavailableError(`suwon portal: ${path} answered ${res.status}`, {
          status: res.status,
          ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
        });
      }
      const $ = load(body);
      if ($('#maintenance').length > 0) {
        throw new PortalUnavailableError(`suwon portal: maintenance page (${text($, $('#maintenance h1').first()) || 'maintenance'})`, { status: res.status, maintenance: true });
      }
      if (res.status !== 200) throw markup(`${path} answered ${res.status}`);
      return $;
    };

    const login = async (scope: AbortSignal | undefined): Promise<void> => {
      const $form = await request('/login', {}, scope);
      const form = $form('form#loginForm');
      if (form.length !== 1) throw markup('login page has no form#loginForm');
      const params = new URLSearchParams();
      form.find('input[type="hidden"]').each((_i, el) => {
        const name = $form(el).attr('name');
        if (name) params.append(name, $form(el).attr('value') ?? '');
      });
      const user = form.find('input[type="text"]').attr('name');
      const pass = form.find('input[type="password"]').attr('name');
      if (!user || !pass) throw markup('login form has no user / password field');
      params.set(user, credentials.studentId);
      params.set(pass, credentials.password);
      const action = new URL(form.attr('action') ?? '/login', `${base}/login`);
      const $after = await request(action.pathname + action.search, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: params.toString(),
      }, scope);
      const error = $after('#loginError');
      if (error.length > 0) {
        if (error.attr('data-reason') === 'credentials') throw new PortalCredentialsInvalidError(`suwon portal: ${text($after, error)}`);
        throw new LoginPageAnswered(`login refused: ${text($after, error)}`);
      }
      if (isLoginPage($after)) throw new LoginPageAnswered('login answered the login form again');
      if ($after('#welcome').length === 0) throw markup('no welcome page after login');
    };

    const loginOnce = async (scope: AbortSignal | undefined): Promise<void> => {
      try {
        await login(scope);
      } catch (err) {
        if (!(err instanceof LoginPageAnswered)) throw err;
        await login(scope).catch((again: unknown) => {
          if (again instanceof LoginPageAnswered) throw new PortalSessionExpiredError(`suwon portal: ${again.message}`);
          throw again;
        });
      }
    };

    let relogging: Promise<void> | undefined;
    let relogged = false;
    /**
     * A data page (through the page cap); the login form instead → one fresh login shared by every
     * page that saw the old session end, and a re-read; the login form from a page sent with the
     * fresh session → PortalSessionExpiredError. No page goes out while the fresh login is under way.
     */
    const dataPage = (path: string): Promise<CheerioAPI> =>
      pageSlots.run(() => group.guard(async () => {
        if (relogging) await relogging;
        const fresh = relogged;
        const $ = await request(path, {}, group.signal);
        if (!isLoginPage($)) return $;
        if (fresh) throw new PortalSessionExpiredError(`suwon portal: the session expired again at ${path} after a fresh login`);
        relogging ??= loginOnce(group.signal).then(() => {
          relogged = true;
        });
        await relogging;
        const again = await request(path, {}, group.signal);
        if (isLoginPage(again)) throw new PortalSessionExpiredError(`suwon portal: ${path} answers the login form right after a fresh login`);
        return again;
      }), group.signal);
    /** `parse` of data page `path`; a markup error stops the scrape's other pages at once. */
    const page = <T>(path: string, parse: ($: CheerioAPI) => T | Promise<T>): Promise<T> => group.guard(async () => parse(await dataPage(path)));

    await loginOnce(ctx.signal);

    // Every page after the login is independent of the others but for the semester pages, which
    // the semester list names: they go out together, at most `pageConcurrency` at once.
    const profileOf = ($profile: CheerioAPI) => {
      const p = kvTable($profile, 'profile', 'profile');
      const studentId = field(p, '학번', 'profile');
      if (studentId !== credentials.studentId) throw markup(`profile shows student ${studentId}, logged in as ${credentials.studentId}`);
      const languageCertificates: LanguageCertificate[] = gridTable($profile, 'languageCertificates', ['시험종류', '점수', '등급', '취득일'], 'profile').map((r) => ({
        kind: field(r, '시험종류', 'certificates'),
        score: optionalNumber(field(r, '점수', 'certificates'), 'certificate score'),
        level: optional(field(r, '등급', 'certificates')),
        acquiredOn: field(r, '취득일', 'certificates'),
      }));
      return {
        studentId,
        name: field(p, '성명', 'profile'),
        admissionYear: number(field(p, '입학년도', 'profile'), 'admission year'),
        department: field(p, '소속학과', 'profile'),
        major: field(p, '전공', 'profile'),
        doubleMajor: optional(field(p, '복수전공', 'profile')),
        enrollmentStatus: field(p, '학적상태', 'profile'),
        gradeLevel: number(field(p, '학년', 'profile'), 'grade level'),
        languageCertificates,
      };
    };

    // Academic record totals as the portal states them.
    const recordOf = ($record: CheerioAPI) => {
      const r = kvTable($record, 'academicRecord', 'record');
      return {
        creditsAttempted: number(field(r, '신청학점', 'record'), 'credits attempted'),
        creditsEarned: number(field(r, '취득학점', 'record'), 'credits earned'),
        gpa: optionalNumber(field(r, '평점평균', 'record'), 'gpa'),
      };
    };

    // Semester list, then each semester's page.
    const semestersOf = async ($list: CheerioAPI): Promise<Semester[]> => {
      const listRows = gridTable($list, 'semesters', ['년도', '학기', '평점'], 'semesters');
      const links = $list('table#semesters tbody tr:not(.empty) a[href]').map((_i, a) => $list(a).attr('href') ?? '').get();
      if (links.length !== listRows.length) throw markup(`semester list has ${listRows.length} rows but ${links.length} links`);
      if (listRows.length > MAX_SEMESTERS) throw markup(`semester list has ${listRows.length} rows (more than ${MAX_SEMESTERS})`);
      const heads = listRows.map((row, i) => {
        const year = number(field(row, '년도', 'semesters'), 'semester year');
        const term = lookup(TERMS, field(row, '학기', 'semesters'), 'semester term');
        const href = new URL(links[i]!, `${base}/student/semesters`);
        if (href.origin !== new URL(base).origin) throw markup(`semester link ${links[i]} leaves the portal`);
        return { year, term, gpa: optionalNumber(field(row, '평점', 'semesters'), 'semester gpa'), path: href.pathname };
      });
      return group.all(heads.map(({ year, term, gpa, path }) => page(path, ($sem): Semester => ({ year, term, gpa, courses: coursesOf($sem, `semester ${year}-${term}`) }))));
    };

    // Designated courses: a table (possibly empty) or a notice that the portal has none for this student.
    const designatedOf = ($des: CheerioAPI): DesignatedCourse[] | undefined => {
      if ($des('#designatedUnavailable').length > 0) return undefined;
      return gridTable($des, 'designatedCourses', ['과목코드', '과목명', '학점', '이수구분', '개설학과'], 'designated courses').map((d) => ({
        courseCode: field(d, '과목코드', 'designated'),
        courseName: field(d, '과목명', 'designated'),
        credits: number(field(d, '학점', 'designated'), 'designated credits'),
        area: lookup(AREAS, field(d, '이수구분', 'designated'), 'designated area'),
        department: optional(field(d, '개설학과', 'designated')),
      }));
    };

    // Course evaluations of the target semester (none outside the evaluation period).
    const evaluationsOf = ($ev: CheerioAPI): ScrapeResultInput['courseEvaluations'] => {
      if ($ev('#evaluationClosed').length > 0) return null;
      const target = $ev('#evaluationTarget');
      if (target.length !== 1) throw markup('evaluations: no #evaluationTarget');
      const termKey = TERM_KEYS[target.attr('data-term') ?? ''];
      if (!termKey) throw markup(`evaluations: target term "${target.attr('data-term')}" unknown`);
      const targetSemester: SemesterRef = { year: number(target.attr('data-year') ?? '', 'evaluation year'), term: termKey };
      return {
        targetSemester,
        items: gridTable($ev, 'evaluations', ['과목코드', '평가상태'], 'evaluations').map((e) => ({
          courseCode: field(e, '과목코드', 'evaluation'),
          status: lookup(EVALUATIONS, field(e, '평가상태', 'evaluation'), 'evaluation status'),
        })),
      };
    };

    const [profile, academicRecord, semesters, designatedCourses, courseEvaluations] = await group.all([
      page('/student/profile', profileOf),
      page('/student/record', recordOf),
      page('/student/semesters', semestersOf),
      page('/student/designated-courses', designatedOf),
      page('/student/evaluations', evaluationsOf),
    ] as const);

    const result: ScrapeResultInput = {
      schemaVersion: SCRAPE_RESULT_SCHEMA_VERSION,
      portalType: 'suwon',
      scrapedAt,
      profile,
      academicRecord,
      semesters,
      ...(designatedCourses === undefined ? {} : { designatedCourses }),
      courseEvaluations,
    };
    const checked = ScrapeResultSchema.safeParse(result);
    if (!checked.success) {
      const first = checked.error.issues[0];
      throw markup(`parsed data does not fit the result schema: ${first ? `${first.path.join('.')}: ${first.message}` : 'invalid'}`);
    }
    return result;
  }

  return { type: 'suwon', scrape };
}
