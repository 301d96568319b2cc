import './app.css';
import { render } from 'preact';
import { App } from './shell/app';
import { registerServiceWorker } from './shell/service-worker';

render(<App />, document.getElementById('app')!);
registerServiceWorker();
