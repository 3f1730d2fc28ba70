export { LiveHub, type LiveHubOptions, type LiveSource, type LiveSubscriber } from './hub';
