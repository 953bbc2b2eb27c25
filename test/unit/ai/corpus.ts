/** Realistic English and Korean scraps shared by the AI unit tests (SAN-7..SAN-11). */

export const PG_INDEX_A = `# How PostgreSQL chooses an index

PostgreSQL creates a B-tree index by default when you run CREATE INDEX on a column. The query planner
compares the estimated cost of a sequential scan with an index scan, using table statistics gathered by
ANALYZE. When a query filters on a highly selective column, the planner prefers the index scan; when it
reads most of the table, a sequential scan is cheaper. Composite indexes help when the leading column
appears in the WHERE clause. Run EXPLAIN ANALYZE to see which plan PostgreSQL picked and how many rows
each node returned.`;

export const PG_INDEX_B = `Indexing tips for Postgres queries

In Postgres, the default index type is a B-tree, which supports equality and range conditions. Whether
the planner uses your index depends on selectivity: if a filter matches only a few rows, an index scan
or bitmap index scan wins, but if the query touches a large part of the table the planner falls back to
a sequential scan. Keep statistics fresh with ANALYZE, put the most selective column first in a
multi-column index, and check the chosen plan with EXPLAIN ANALYZE.`;

export const BREAD = `Baking a simple sourdough loaf

Mix 500 g of bread flour with 350 g of water and let the dough rest for an hour before adding the
salt and the levain. Over the next four hours, stretch and fold the dough every thirty minutes so the
gluten develops. Shape it into a tight boule, place it in a floured banneton and let it proof in the
fridge overnight. Bake in a preheated Dutch oven at 250 °C with the lid on for twenty minutes, then
uncover it until the crust turns deep brown.`;

export const TLS = `## Rotating TLS certificates without downtime

Short-lived certificates limit the damage of a leaked private key, but only if renewal is automatic.
Issue the new certificate before the old one expires, deploy both, and let clients negotiate TLS with
whichever is valid. Monitor expiry dates and alert well ahead of time: an expired certificate breaks
authentication for every client at once and looks like an attack from the outside.`;

export const OS_SCHED_KO = `# 운영체제의 CPU 스케줄링

운영체제는 여러 프로세스가 CPU를 공정하게 나누어 쓰도록 스케줄링 정책을 사용한다. 라운드 로빈 스케줄링은 각 프로세스에
정해진 타임 슬라이스를 주고, 시간이 끝나면 문맥 교환을 통해 다음 프로세스로 넘어간다. 우선순위 스케줄링은 우선순위가 높은
프로세스를 먼저 실행하지만 기아 현상이 생길 수 있어 에이징 기법으로 보완한다. 리눅스 커널의 CFS 스케줄러는 가상 실행 시간이
가장 작은 프로세스를 골라 실행한다.`;

export const OS_SCHED_KO_B = `CPU 스케줄러는 준비 큐에 있는 프로세스 중 다음에 실행할 프로세스를 고른다. 선점형 스케줄링에서는 운영체제가
실행 중인 프로세스를 중단시키고 다른 프로세스에게 CPU를 넘길 수 있다. 라운드 로빈 방식은 타임 슬라이스가 너무 짧으면 문맥 교환
비용이 커지고, 너무 길면 응답 시간이 나빠진다. 리눅스의 CFS 스케줄러는 프로세스마다 가상 실행 시간을 기록해 공정하게 CPU를 배분한다.`;

export const COOKING_KO = `# 된장찌개 끓이는 법

냄비에 멸치와 다시마를 넣고 물을 부어 15분 정도 끓여 육수를 만든다. 육수에 된장을 풀고 감자와 애호박, 양파를 썰어 넣는다.
채소가 익으면 두부와 청양고추를 넣고 한소끔 더 끓인다. 마지막으로 대파를 송송 썰어 올리고 불을 끈다. 된장의 양은 집집마다
다르니 간을 보면서 조절하면 된다.`;
