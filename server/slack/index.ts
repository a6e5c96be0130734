export { createSlackFrontEnd, type SlackFrontEnd, type SlackFrontEndOptions } from './front-end';
export { slackFrontEndFromConfig } from './from-config';
export { routeSlackMessage, slackThreadId, type RoutedSlackMessage, type SlackMessageEvent } from './event-routing';
