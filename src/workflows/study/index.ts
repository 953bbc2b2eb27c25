/** The study family's workflows (ST-3 … ST-6, its explanation job and the review loop's reminders). */
export { studyExplanationWorkflow } from './explanation';
export { studyCardExtractWorkflow } from './extract';
export { studyCardPollWorkflow } from './poll';
export { studyRemindersWorkflow } from './reminders';
