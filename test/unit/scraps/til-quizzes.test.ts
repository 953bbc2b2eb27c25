import type { Quiz } from '../../../src/domain/scraps/quizzes';
import { acceptQuizzes } from '../../../src/domain/scraps/quizzes';

const A = '00000000-0000-4000-8000-0000000000c1';
const B = '00000000-0000-4000-8000-0000000000c2';
const quiz = (over: Partial<Quiz>): Quiz => ({ type: 'OX', question: 'PostgreSQL indexes are B-trees by default.', answer: 'O', explanation: 'e', sourceCardId: A, ...over });

describe('acceptQuizzes (SAN-11 re-validation)', () => {
  it('keeps valid quizzes in order', () => {
    const qs = [quiz({}), quiz({ type: 'SHORT_ANSWER', question: 'The default index type is ____.', answer: 'B-tree', sourceCardId: B }), quiz({ answer: 'X' })];
    expect(acceptQuizzes(qs, [A, B], ['OX', 'SHORT_ANSWER'])).toEqual({ accepted: qs, rejected: [] });
  });

  it.each([
    ['an OX answer other than O/X', quiz({ answer: 'True' }), 'OX_ANSWER_NOT_O_OR_X'],
    ['a short answer that appears in its question (any case)', quiz({ type: 'SHORT_ANSWER', question: 'A b-TREE keeps keys sorted: ____', answer: 'B-tree' }), 'ANSWER_IN_QUESTION'],
    ['a card that was not an input', quiz({ sourceCardId: '00000000-0000-4000-8000-0000000000ff' }), 'UNKNOWN_SOURCE_CARD'],
    ['a type that was not requested', quiz({ type: 'SHORT_ANSWER', question: 'q ____', answer: 'x' }), 'TYPE_NOT_REQUESTED'],
  ])('rejects %s', (_name, bad, reason) => {
    const types = reason === 'TYPE_NOT_REQUESTED' ? (['OX'] as const) : (['OX', 'SHORT_ANSWER'] as const);
    const out = acceptQuizzes([quiz({}), bad], [A, B], [...types]);
    expect(out.accepted).toEqual([quiz({})]);
    expect(out.rejected).toEqual([{ index: 1, reason }]);
  });
});
