/** The study family's workflows (ST-3 … ST-6 and its explanation job). */
export { studyExplanationWorkflow } from './explanation';
export { studyCardExtractWorkflow } from './extract';
export { studyCardPollWorkflow } from './poll';
export { studyRemindersWorkflow } from './reminders';
